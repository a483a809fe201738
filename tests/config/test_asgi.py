"""The ASGI application: HTTP through Django, and the embedded worker started on import."""

import json
import re
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from channels.testing import HttpCommunicator, WebsocketCommunicator

from config.asgi import application
from tests.config.test_settings import BASE_DIR, clean_env


@pytest.mark.django_db(transaction=True)
async def test_http_is_served_through_the_asgi_app() -> None:
    communicator = HttpCommunicator(
        application, "GET", "/healthz", headers=[(b"host", b"localhost")]
    )
    response = await communicator.get_response()
    assert response["status"] == 200
    assert b'"status": "ok"' in response["body"]


async def test_unknown_websocket_path_is_refused() -> None:
    communicator = WebsocketCommunicator(application, "/ws/nowhere/")
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


def run_python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter on the embedded default, as `make run` would."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_embedded_mode_starts_worker_and_beat_on_import(tmp_path: Path) -> None:
    code = (
        "import config.asgi as a; w = a.embedded_worker; "
        "print(w.thread.is_alive(), w.thread.daemon, w.beat is not None and w.beat.is_alive())"
    )
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "True"]


# The worker config.asgi starts must run what is sent to the default queue, on time. The task
# is registered before the worker starts (a worker only runs tasks it knew at start-up).
COUNTDOWN_PROBE = """
import threading, time
from config.celery import app
fired = threading.Event()
@app.task(name="probe.fire")
def fire():
    fired.set()
import config.asgi
sent = time.monotonic()
fire.apply_async(countdown=1)
assert fired.wait(10), "the embedded worker never ran the task"
print(round(time.monotonic() - sent, 2))
"""


def test_embedded_worker_started_by_the_asgi_module_fires_a_countdown_task(
    tmp_path: Path,
) -> None:
    result = run_python(COUNTDOWN_PROBE, tmp_path)
    assert result.returncode == 0, result.stderr
    # Never before its countdown; the probe's own 10 s wait bounds lateness (no tight limit).
    assert float(result.stdout) >= 1.0, result.stdout


def test_ctrl_c_stops_the_server_and_its_embedded_worker(tmp_path: Path) -> None:
    """SIGINT (Ctrl-C in `make run`) ends daphne with the worker and beat threads, promptly."""
    env = clean_env(tmp_path, SQLITE_PATH=str(tmp_path / "db.sqlite3"))
    daphne = Path(sys.executable).parent / "daphne"
    server = subprocess.Popen(
        [str(daphne), "-b", "127.0.0.1", "-p", "0", "config.asgi:application"],
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        port = None
        for line in server.stderr:
            if match := re.search(r"Listening on TCP address 127\.0\.0\.1:(\d+)", line):
                port = int(match.group(1))
                break
        assert port, "daphne did not start"
        # Read the rest as it comes: a full pipe would block the server's logging on shutdown.
        threading.Thread(target=server.stderr.read, daemon=True).start()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as response:
            assert json.load(response)["status"] == "ok"
        server.send_signal(signal.SIGINT)
        # Catches a hang, not slowness: about 3 s alone, once over 15 s late in a slow full run.
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
