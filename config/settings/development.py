"""Settings for `make run` and a developer's machine: the base settings plus a local secret key.

The key is generated once and kept in an ignored file (`.secret_key` by default), so sessions
survive restarts while no secret ever enters the repository. `DJANGO_SECRET_KEY` still wins.
"""

import os
import secrets
import tempfile
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .base import *

SECRET_KEY_FILE = Path(env("DJANGO_SECRET_KEY_FILE", default=str(BASE_DIR / ".secret_key")))


def _local_secret_key(path: Path) -> str:
    """Return the key kept in `path`, generating it on first use.

    The key is written to a private temporary file (mkstemp makes it 0600, whatever the umask)
    and linked into place in one step, so the file is never readable by others nor seen half
    written; if another process got there first, its key is the one used.
    """
    if not path.exists():
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".secret_key-")
        try:
            with os.fdopen(fd, "w") as file:
                file.write(secrets.token_urlsafe(50) + "\n")
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    key = path.read_text().strip()
    if not key:
        raise ImproperlyConfigured(f"{path} is empty; delete it to generate a new key")
    return key


SECRET_KEY = SECRET_KEY or _local_secret_key(SECRET_KEY_FILE)
