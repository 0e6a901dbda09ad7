"""Python exceptions from the C ABI's one table of statuses (lfb_status_class)."""
from __future__ import annotations

from ._native import ffi, lib


class Error(Exception):
    """A failed lfbloom call. ``status`` is the C ABI's code (negative), ``status_name`` its name;
    ``done``, for a batch, the keys processed before the one that stopped it (else None)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status
        self.done: int | None = None
        self.status_name = _text(lib.lfb_status_name(status)) or "unknown"


class ArgumentError(Error, ValueError):
    """The caller's mistake: a value outside its domain (also a ``ValueError``)."""


class RefusalError(Error):
    """The filter declined, as designed: full, too many duplicates, ambiguous remove, not present."""


class DataError(Error):
    """The data or filters given do not fit: corrupt, unsupported version, incompatible."""


class ResourceError(Error):
    """Memory, the memory limit, or I/O."""


class StateError(Error):
    """The filter's state forbids the call: read-only."""


class ClosedError(Error, ValueError):
    """A call on a closed filter (also a ``ValueError``, as for a closed file)."""


class InternalError(Error):
    """A bug in lfbloom: please report it."""


# enum lfb_status_class -> exception; the C library classifies, so every binding maps alike.
_BY_CLASS = {lib.LFB_CLASS_ARGUMENT: ArgumentError, lib.LFB_CLASS_REFUSAL: RefusalError, lib.LFB_CLASS_DATA: DataError,
             lib.LFB_CLASS_RESOURCE: ResourceError, lib.LFB_CLASS_STATE: StateError}


def _text(pointer: object) -> str:
    return ffi.string(pointer).decode("utf-8", "replace") if pointer != ffi.NULL else ""


def error_for(status: int, what: str) -> Error:
    """The exception for a negative status, with this thread's message from the C library."""
    if status == lib.LFBPY_CLOSED:
        return ClosedError(f"{what}: the filter is closed", lib.LFB_ERR_INVALID_ARGUMENT)
    if status == lib.LFBPY_IN_USE:
        return ArgumentError(f"{what}: the filter is closed or in use by another thread", lib.LFB_ERR_INVALID_ARGUMENT)
    detail = _text(lib.lfb_last_error()) or _text(lib.lfb_strerror(status))
    return _BY_CLASS.get(lib.lfb_status_class(status), InternalError)(f"{what}: {detail}", status)


def check(status: int, what: str) -> int:
    """``status`` if it is not an error; raises the matching exception otherwise."""
    if status < 0:
        raise error_for(status, what)
    return status
