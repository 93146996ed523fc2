"""Logging setup for every process (API servers, job workers): readable text lines, or one
JSON object per line carrying the request id and the job id of the work that logged it."""

from __future__ import annotations

import json
import logging
import logging.config
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal

LogFormat = Literal["text", "json"]

# Set by RequestContextMiddleware for a request's duration, and by the worker around a job:
# every record logged meanwhile, by any logger (uvicorn's, SQLAlchemy's), carries them.
request_id_var: ContextVar[str | None] = ContextVar("soundstage_request_id", default=None)
job_id_var: ContextVar[str | None] = ContextVar("soundstage_job_id", default=None)

TEXT_FORMAT = "%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s%(context)s"
# LogRecord attributes that are the record's own, not fields a caller passed in `extra`.
_RECORD_FIELDS = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys()
    | {"message", "asctime", "request_id", "job_id", "context", "color_message"}
)


class ContextFilter(logging.Filter):
    """Puts the current request id and job id on every record (None outside one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        ids = {"request_id": request_id_var.get(), "job_id": job_id_var.get()}
        for key, value in ids.items():
            setattr(record, key, value)
        shown = " ".join(f"{key}={value}" for key, value in ids.items() if value)
        record.context = f" [{shown}]" if shown else ""
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (RFC 3339 UTC), level, logger, message, pid, the request
    and job ids when set, any `extra` fields, and the traceback as text."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        for key in ("request_id", "job_id"):
            value = getattr(record, key, None)
            if value:
                entry[key] = value
        for key, value in vars(record).items():
            if key not in _RECORD_FIELDS and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str)


def logging_config(log_format: LogFormat, level: str | None = None) -> dict[str, Any]:
    """The dictConfig of a process: one stderr handler in `log_format` for the root logger,
    which uvicorn's and Huey's loggers propagate to (uvicorn is given this config too, so its
    access log comes out in the same format)."""
    level = (level or os.environ.get("SOUNDSTAGE_LOG_LEVEL", "info")).upper()
    formatter: dict[str, Any] = (
        {"()": JsonFormatter} if log_format == "json" else {"format": TEXT_FORMAT}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": ContextFilter}},
        "formatters": {"default": formatter},
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "default",
                "filters": ["context"],
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["default"], "level": level},
        "loggers": {
            # uvicorn's loggers keep their levels but lose their own handlers: the root's.
            "uvicorn": {"handlers": [], "propagate": True},
            "uvicorn.error": {"handlers": [], "propagate": True},
            "uvicorn.access": {"handlers": [], "propagate": True},
        },
    }


def configure(log_format: LogFormat, level: str | None = None) -> None:
    logging.config.dictConfig(logging_config(log_format, level))


@contextmanager
def job_context(job_id: str) -> Iterator[None]:
    """Records logged inside the block carry `job_id`."""
    token = job_id_var.set(job_id)
    try:
        yield
    finally:
        job_id_var.reset(token)
