"""Secrets from files, and the database's address from its parts, for the settings.

A secret may be given as ``NAME`` or as ``NAME_FILE``, the path of a file holding it (Docker and
compose secrets, Kubernetes mounted secrets): the file's text is the value, without its trailing
newline. ``NAME`` wins when both are set, as ``DJANGO_SECRET_KEY`` always has over the
development key's file (``DJANGO_SECRET_KEY_FILE``, config/settings/development.py).

The database is one URL (``DATABASE_URL``) or its parts, named as the postgres image names them
(``POSTGRES_HOST``, ``POSTGRES_PORT``, ``POSTGRES_DB``, ``POSTGRES_USER``, ``POSTGRES_PASSWORD``
or ``POSTGRES_PASSWORD_FILE``). Parts are quoted into the URL here, so a password with ``/``,
``+``, ``@``, ``:`` or ``%`` works; pasted into a URL by hand (as compose once did) it breaks the
URL or names another host.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

from django.core.exceptions import ImproperlyConfigured


def env_or_file(
    name: str, default: str | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """``name``'s value, else the text of the file ``name_FILE`` names (one trailing newline
    dropped); ``default`` when neither is set (None: refused).

    >>> env_or_file("KEY", environ={"KEY": "k"})
    'k'
    >>> env_or_file("KEY", "", environ={})
    ''
    """
    environ = os.environ if environ is None else environ
    if name in environ:
        return environ[name]
    path = environ.get(f"{name}_FILE")
    if path:
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE: cannot read {path}: {exc}") from exc
        return text.removesuffix("\n").removesuffix("\r")
    if default is None:
        raise ImproperlyConfigured(f"set {name} (or {name}_FILE)")
    return default


def postgres_url(environ: Mapping[str, str] | None = None) -> str:
    """The PostgreSQL URL of the ``POSTGRES_*`` parts, each quoted; "" without ``POSTGRES_HOST``.

    >>> postgres_url({"POSTGRES_HOST": "db", "POSTGRES_PASSWORD": "a/b+c@d"})
    'postgres://rummy:a%2Fb%2Bc%40d@db:5432/rummy'
    """
    environ = os.environ if environ is None else environ
    host = environ.get("POSTGRES_HOST", "")
    if not host:
        return ""
    user = quote(environ.get("POSTGRES_USER", "rummy"), safe="")
    password = quote(env_or_file("POSTGRES_PASSWORD", "", environ), safe="")
    port = environ.get("POSTGRES_PORT", "5432")
    name = quote(environ.get("POSTGRES_DB", "rummy"), safe="")
    credentials = f"{user}:{password}" if password else user
    return f"postgres://{credentials}@{host}:{port}/{name}"
