"""A graceful restart, for real: daphne serving config.asgi closes its sockets with 1012 on
SIGTERM (config/restart.py), so clients reconnect at once instead of timing out."""

import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.processes.test_settings import BASE_DIR, clean_env


def test_sigterm_closes_open_sockets_with_1012_then_stops(tmp_path: Path) -> None:
    env = clean_env(tmp_path, SQLITE_PATH=str(tmp_path / "db.sqlite3"))
    migrate = [sys.executable, "manage.py", "migrate", "--noinput"]
    subprocess.run(migrate, cwd=BASE_DIR, env=env, check=True, capture_output=True, timeout=300)
    server = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", "0", "config.asgi:application"],
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    logged: list[str] = []
    try:
        assert server.stderr is not None
        port = None
        for line in server.stderr:
            logged.append(line)
            if match := re.search(r"Listening on TCP address 127\.0\.0\.1:(\d+)", line):
                port = int(match.group(1))
                break
        assert port, "daphne did not start:\n" + "".join(logged)
        reader = threading.Thread(target=lambda: logged.extend(server.stderr or ()), daemon=True)
        reader.start()
        with connect(f"ws://127.0.0.1:{port}/ws/lobby/", open_timeout=30) as socket:
            socket.recv(timeout=30)  # the lobby's first frame: the socket is open and served
            server.send_signal(signal.SIGTERM)
            try:
                while True:
                    socket.recv(timeout=30)
            except ConnectionClosed as closed:
                received = closed.rcvd
        assert received is not None, "no close frame: " + "".join(logged)
        assert received.code == 1012, "".join(logged)
        assert server.wait(timeout=60) == 0, "".join(logged)
        reader.join(timeout=10)
        assert "closing 1 sockets with 1012" in "".join(logged)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
