"""config/logs.py: JSON lines on the chosen stream (stderr here, stdout in production), and an
idle service's periodic tasks silent at INFO.

The tasks run through Celery's own tracer (``apply``), which writes the worker's "succeeded"
line; beat's "Sending due task" line is written by beat's own logger. Transactional: around a
task config/celery.py closes the thread's connection, as a worker does."""

from __future__ import annotations

import json
import logging
import logging.config
from collections.abc import Iterator

import pytest
from django.conf import settings

from config.logs import CELERY_TASK_LOGGERS, logging_config
from games.tasks import rematch_expired, sweep


@pytest.fixture
def configured() -> Iterator[None]:
    """The logging configuration is the process's: put back what the test settings had. Celery's
    task loggers start from the root's level here, as in a process configured only by LOGGING:
    a worker an earlier test started in this process set their levels itself."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    levels = {name: logging.getLogger(name).level for name in CELERY_TASK_LOGGERS}
    for name in CELERY_TASK_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET)
    yield
    root.handlers[:], root.level = saved
    for name, level in levels.items():
        logging.getLogger(name).filters.clear()
        logging.getLogger(name).setLevel(level)


def use(fmt: str, level: str) -> None:
    config = logging_config(fmt=fmt, level=level, periodic_tasks=settings.PERIODIC_TASKS)
    logging.config.dictConfig(config)


def lines(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line]


@pytest.mark.django_db(transaction=True)
def test_a_sweep_logs_nothing_at_info(configured: None, capsys: pytest.CaptureFixture) -> None:
    use("json", "INFO")
    sweep.apply()
    logging.getLogger("celery.beat").info(
        "Scheduler: Sending due task %s (%s)", "sweep-overdue-turns", "games.tasks.sweep"
    )
    assert capsys.readouterr().err == ""


@pytest.mark.django_db(transaction=True)
def test_other_tasks_keep_their_info_lines_as_json(
    configured: None, capsys: pytest.CaptureFixture
) -> None:
    use("json", "INFO")
    rematch_expired.apply(args=(0, "2026-01-01T00:00:00+00:00"))
    [line] = lines(capsys.readouterr().err)
    assert line["level"] == "INFO" and line["logger"] == "celery.app.trace"
    assert "games.tasks.rematch_expired" in str(line["message"])
    assert str(line["time"]).startswith("20") and "T" in str(line["time"])


@pytest.mark.django_db(transaction=True)
def test_at_debug_the_sweep_lines_are_there_as_debug(
    configured: None, capsys: pytest.CaptureFixture
) -> None:
    use("json", "DEBUG")
    sweep.apply()
    traced = [x for x in lines(capsys.readouterr().err) if x["logger"] == "celery.app.trace"]
    assert [x["level"] for x in traced] == ["DEBUG"]
    assert "games.tasks.sweep" in str(traced[0]["message"])


def test_a_warning_of_a_periodic_task_keeps_its_level(
    configured: None, capsys: pytest.CaptureFixture
) -> None:
    use("text", "INFO")
    logging.getLogger("celery.app.trace").warning(
        "Task %(name)s[%(id)s] retry", {"name": "games.tasks.sweep", "id": "1"}
    )
    assert "WARNING celery.app.trace Task games.tasks.sweep[1] retry" in capsys.readouterr().err


def test_every_beat_task_is_quiet() -> None:
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert set(settings.PERIODIC_TASKS) == scheduled


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        logging_config(fmt="xml", level="INFO", periodic_tasks=[])


def test_the_lines_go_to_the_stream_chosen(configured: None, capsys: pytest.CaptureFixture) -> None:
    for stream in ("stdout", "stderr"):
        config = logging_config(fmt="json", level="INFO", periodic_tasks=[], stream=stream)
        logging.config.dictConfig(config)
        logging.getLogger("rummy.probe").warning("to %s", stream)
        out, err = capsys.readouterr()
        [line] = lines(out if stream == "stdout" else err)
        assert line["message"] == f"to {stream}" and (err if stream == "stdout" else out) == ""
    with pytest.raises(ValueError, match="LOG_STREAM"):
        logging_config(fmt="json", level="INFO", periodic_tasks=[], stream="syslog")
