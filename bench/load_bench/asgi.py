"""What ``bench/load.py`` serves: ``bench/echo_asgi.py`` (the site plus the bare echo) with the
statement counter loaded first, so each uvicorn worker counts its queries."""

from bench.echo_asgi import application
from bench.load_bench import sql_count  # noqa: F401  (it installs itself when asked to)

__all__ = ["application"]
