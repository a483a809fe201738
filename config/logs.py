"""The logging configuration: one line per record, JSON or text, on one stream.

In production (``LOG_STREAM``'s default there) the lines go to standard output, where container
platforms and twelve-factor tooling expect a service's log. Elsewhere they go to standard error,
so standard output stays clean for what commands print for other programs to read
(``manage.py tables_verify --json``, the benches' JSON, a probe's answer); with the log lines
there too, those stopped parsing. An operator piping a command's JSON in production sets
``LOG_STREAM=stderr`` for that command.

In production every line is a JSON object (``time``, ``level``, ``logger``, ``message``, plus
``exc_info`` for a traceback and whatever ``extra`` a caller passed), so a log shipper reads the
fields without parsing prose; on a developer's machine it is plain text. ``LOG_LEVEL`` sets the
root level (INFO by default).

An idle service should log next to nothing. The periodic tasks (beat's schedule: the clock sweep
every two seconds, the lobby's and the events' schedules) would each write three lines a run at
INFO, beat's "Sending due task", the worker's "received" and "succeeded": about 20 MB a day.
``PeriodicTaskLines`` demotes those lines to DEBUG; every other task's lines, and every warning
or error of a periodic task, keep their level.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

FORMATS = ("json", "text")
STREAMS = ("stdout", "stderr")
# The loggers of Celery's per-task lines: the worker's "received", the tracer's "succeeded"
# (and retried, failed), beat's "Sending due task".
CELERY_TASK_LOGGERS = ("celery.worker.strategy", "celery.app.trace", "celery.beat")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
JSON_FIELDS = ["levelname", "name", "message"]
JSON_RENAMES = {"levelname": "level", "name": "logger"}


class PeriodicTaskLines(logging.Filter):
    """Demotes Celery's INFO lines about the tasks named in ``tasks`` to DEBUG, and drops them
    unless their logger is enabled for DEBUG."""

    def __init__(self, tasks: Iterable[str]) -> None:
        super().__init__()
        self.tasks = frozenset(tasks)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO or _task_name(record) not in self.tasks:
            return True
        record.levelno = logging.DEBUG
        record.levelname = "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def _task_name(record: logging.LogRecord) -> object:
    """The task a Celery line is about: the tracer and the worker pass a dict with ``name``,
    beat the entry's name and then its task's."""
    args: Any = record.args
    if isinstance(args, Mapping):
        return args.get("name")
    if isinstance(args, tuple) and len(args) == 2:
        return args[1]
    return None


def logging_config(
    *, fmt: str, level: str, periodic_tasks: Iterable[str], stream: str = "stderr"
) -> dict[str, Any]:
    """Django's ``LOGGING``: every record to ``stream`` (``stdout`` or ``stderr``) in ``fmt``
    (``json`` or ``text``) from ``level`` up, Celery's lines about ``periodic_tasks`` at
    DEBUG."""
    if fmt not in FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if stream not in STREAMS:
        raise ValueError(f"LOG_STREAM must be one of {', '.join(STREAMS)}, not {stream!r}")
    formatters: dict[str, dict[str, Any]] = {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": JSON_FIELDS,
            "rename_fields": JSON_RENAMES,
            # ISO 8601 in UTC, from the record's own creation time.
            "timestamp": "time",
        },
        "text": {"format": TEXT_FORMAT},
    }
    periodic = {"()": PeriodicTaskLines, "tasks": sorted(periodic_tasks)}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {fmt: formatters[fmt]},
        "filters": {"periodic_tasks": periodic},
        "handlers": {
            "lines": {
                "class": "logging.StreamHandler",
                "stream": f"ext://sys.{stream}",
                "formatter": fmt,
            }
        },
        "root": {"handlers": ["lines"], "level": level},
        "loggers": {name: {"filters": ["periodic_tasks"]} for name in CELERY_TASK_LOGGERS},
    }
