"""Settings for `make run` and a developer's machine: the base settings plus a local secret key.

The key is generated once and kept in an ignored file (`.secret_key` by default), so sessions
survive restarts while no secret ever enters the repository. `DJANGO_SECRET_KEY` still wins.
"""

import secrets
from pathlib import Path

from .base import *

SECRET_KEY_FILE = Path(env("DJANGO_SECRET_KEY_FILE", default=str(BASE_DIR / ".secret_key")))


def _local_secret_key(path: Path) -> str:
    """Return the key kept in `path`, generating it on first use."""
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_urlsafe(50)
    path.write_text(key + "\n")
    path.chmod(0o600)
    return key


SECRET_KEY = SECRET_KEY or _local_secret_key(SECRET_KEY_FILE)
