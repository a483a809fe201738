"""Real processes for the fault tests: ASGI servers (daphne, as compose runs them), a
redis-server of the test's own, and a TCP proxy that can cut PostgreSQL away from a server.

Every process runs on this test run's database, Celery queue and channel prefix (as
tests/games/workers.py does for the Celery processes), so a test never touches another run's
data, and `Processes.close` kills whatever a test started, passed or failed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from tests.games.workers import ROOT, wait_for

# The fault tests start real servers against PostgreSQL and Redis: without both (the embedded
# default) there is nothing to kill. CI sets both, with REQUIRE_SERVICES=1.
FULL = bool(os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"))
needs_services = pytest.mark.skipif(not FULL, reason="needs DATABASE_URL and REDIS_URL")
# Generous: a loaded two-core machine makes a start slow, never wrong.
START_SECONDS = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def database_url(*, port: int | None = None) -> str:
    """The test database's URL, through ``port`` on this machine when given (a proxy)."""
    db = connection.settings_dict
    auth = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    host = "127.0.0.1" if port else db["HOST"] or "127.0.0.1"
    return f"postgres://{auth}@{host}:{port or db['PORT'] or 5432}/{db['NAME']}"


def service_env(*, db_port: int | None = None, redis_url: str | None = None) -> dict[str, str]:
    """The environment of a server on this run's database, queue and channel prefix."""
    layer = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(port=db_port),
        "CELERY_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        "CHANNELS_PREFIX": layer.get("prefix", "asgi"),
        "DJANGO_LOG_LEVEL": "WARNING",
    }
    if redis_url:
        env.update(REDIS_URL=redis_url, CELERY_BROKER_URL=redis_url)
    return env


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-4000:] if log.exists() else "(no log)"


class Server:
    """One daphne process serving config.asgi on a fixed port, so clients find it again after
    a restart."""

    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.env = env
        self.log = tmp / f"daphne-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def start(self) -> Server:
        daphne = Path(sys.executable).parent / "daphne"
        command = [str(daphne), "-b", "127.0.0.1", "-p", str(self.port), "config.asgi:application"]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=out, stderr=out)
        wait_for(self._healthy, timeout=START_SECONDS, what=f"daphne on {self.port}")
        return self

    def _healthy(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"daphne exited:\n{_tail(self.log)}")
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=5) as answer:
                return bool(answer.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def kill(self) -> None:
        """SIGKILL: no shutdown, no socket closed cleanly, nothing flushed."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def logged(self) -> str:
        return _tail(self.log)


class RedisServer:
    """A redis-server of the test's own, so it can be killed without touching the shared one."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.tmp = tmp
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", str(self.tmp)]
        log = (self.tmp / f"redis-{self.port}.log").open("ab")
        with log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=log)
        wait_for(self._answers, timeout=START_SECONDS, what=f"redis-server on {self.port}")
        return self

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


class TcpProxy:
    """A TCP proxy to ``target`` on a port of its own that a test can turn against its clients:
    ``refuse()`` closes the port and cuts every connection (the database is gone),
    ``allow()`` opens it again, ``cut_on(marker)`` cuts the one connection that next sends
    ``marker`` (a statement's text) before the statement reaches the server."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self._marker: bytes | None = None
        self._lock = threading.Lock()
        self.cuts = 0  # connections cut by a marker

    def allow(self) -> TcpProxy:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        listener.settimeout(0.1)  # so the accept loop sees refuse() promptly
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def refuse(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            sockets, self._open = list(self._open), set()
        if listener is not None:
            listener.close()
        for sock in sockets:
            _close(sock)

    def cut_on(self, marker: bytes) -> None:
        with self._lock:
            self._marker = marker

    def _accept(self, listener: socket.socket) -> None:
        while self._listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            client.settimeout(None)
            upstream.settimeout(None)
            with self._lock:
                self._open |= {client, upstream}
            for src, dst, watch in ((client, upstream, True), (upstream, client, False)):
                threading.Thread(target=self._pump, args=(src, dst, watch), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, watch: bool) -> None:
        try:
            while data := src.recv(65536):
                if watch and self._tripped(data):
                    break
                dst.sendall(data)
        except OSError:
            pass
        with self._lock:
            self._open -= {src, dst}
        _close(src)
        _close(dst)

    def _tripped(self, data: bytes) -> bool:
        with self._lock:
            if self._marker is None or self._marker not in data:
                return False
            self._marker = None
            self.cuts += 1
            return True


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


class Processes:
    """What one test started; ``close`` ends all of it."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.servers: list[Server] = []
        self.redis: list[RedisServer] = []
        self.proxies: list[TcpProxy] = []

    def server(self, *, db_port: int | None = None, redis_url: str | None = None) -> Server:
        server = Server(self.tmp, service_env(db_port=db_port, redis_url=redis_url))
        self.servers.append(server)
        return server.start()

    def redis_server(self) -> RedisServer:
        redis = RedisServer(self.tmp)
        self.redis.append(redis)
        return redis.start()

    def database_proxy(self) -> TcpProxy:
        db = connection.settings_dict
        proxy = TcpProxy((db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432)))
        self.proxies.append(proxy)
        return proxy.allow()

    def close(self) -> None:
        for server in self.servers:
            server.kill()
        for proxy in self.proxies:
            proxy.refuse()
        for redis in self.redis:
            redis.kill()
