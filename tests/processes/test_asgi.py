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
from tests.processes.test_settings import BASE_DIR, clean_env


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


# Daphne's own command line, as `make run` starts it from a terminal, with a probe that runs
# once the server has returned and the interpreter is about to be torn down: it names the
# threads still alive then. SIGUSR1 dumps every thread's stack, for a server that does not stop.
#
# SIGINT is first set back to Python's default. A suite started in the background by a
# non-interactive shell (`make test &`, nohup, some CI runners) runs with SIGINT ignored, and a
# child inherits that: Python then leaves SIGINT ignored, Twisted installs its Ctrl-C handler
# only over Python's default one, and the server never hears the signal (the test waited its
# 60 s). A terminal's `make run` always starts with SIGINT at its default.
DAPHNE_WITH_EXIT_PROBE = """
import faulthandler, signal, sys, threading
signal.signal(signal.SIGINT, signal.default_int_handler)
faulthandler.register(signal.SIGUSR1, all_threads=True)
from daphne.cli import CommandLineInterface
try:
    CommandLineInterface().run(sys.argv[1:])
finally:
    alive = sorted(t.name for t in threading.enumerate() if t is not threading.main_thread())
    print("alive at exit:", ",".join(alive), file=sys.stderr, flush=True)
"""


def interrupt_server(tmp_path: Path) -> tuple[int, str]:
    """Serve config.asgi with Daphne on the embedded default, check it answers, send SIGINT
    (Ctrl-C in `make run`); the exit status and everything the server wrote to stderr."""
    env = clean_env(tmp_path, SQLITE_PATH=str(tmp_path / "db.sqlite3"))
    command = [sys.executable, "-c", DAPHNE_WITH_EXIT_PROBE, "-b", "127.0.0.1", "-p", "0"]
    server = subprocess.Popen(
        [*command, "config.asgi:application"],
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
        # Read the rest as it comes: a full pipe would block the server's logging on shutdown.
        reader = threading.Thread(target=lambda: logged.extend(server.stderr or ()), daemon=True)
        reader.start()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as response:
            assert json.load(response)["status"] == "ok"
        server.send_signal(signal.SIGINT)
        try:
            # Catches a hang, not slowness: about 1 s alone, over 10 s on a machine loaded ten
            # deep, where tearing the interpreter down (0.6 s of CPU) waits its turns.
            status = server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            # Which signals it blocks, ignores and has pending, then where each thread stands.
            status_lines = Path(f"/proc/{server.pid}/status").read_text().splitlines()
            signals = "\n".join(line for line in status_lines if line.startswith("Sig"))
            server.send_signal(signal.SIGUSR1)
            reader.join(timeout=5)
            raise AssertionError(f"daphne did not stop:\n{signals}\n" + "".join(logged)) from None
        reader.join(timeout=10)
        return status, "".join(logged)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_ctrl_c_stops_the_server_and_its_embedded_worker(tmp_path: Path) -> None:
    """SIGINT ends daphne with the worker and beat threads, promptly."""
    status, logged = interrupt_server(tmp_path)
    assert status == 0, logged


def test_ctrl_c_stops_the_embedded_worker_before_the_interpreter_exits(tmp_path: Path) -> None:
    """The worker, its pool and timer and beat have ended once Daphne returns: left running,
    the worker took tasks through the interpreter's shutdown and its daemon threads were cut
    off wherever they stood (config/embedded.py, `stop_with_server`)."""
    status, logged = interrupt_server(tmp_path)
    assert status == 0, logged
    (alive,) = re.findall(r"^alive at exit: (.*)$", logged, re.MULTILINE)
    assert alive == "", logged
    assert "cannot schedule new futures" not in logged
