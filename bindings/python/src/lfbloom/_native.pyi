# The cffi module lfbloom_build.py generates: its functions are the C ABI's (capi/include/lfbloom.h)
# and the guard's; the typed surface is the package's own Python modules (PEP 561, py.typed).
from typing import Any

ffi: Any
lib: Any
