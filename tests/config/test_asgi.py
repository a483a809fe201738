"""The ASGI application: HTTP through Django, and the embedded worker started on import."""

import subprocess
import sys
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


def test_embedded_mode_starts_worker_and_beat_on_import(tmp_path: Path) -> None:
    code = (
        "import config.asgi as a; w = a.embedded_worker; "
        "print(w.thread.is_alive(), w.thread.daemon, w.beat is not None and w.beat.is_alive())"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "True"]
