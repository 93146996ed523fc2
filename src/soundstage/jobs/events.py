"""The end of a job, announced to whoever listens: the webhooks feature installs its listener
at startup (`on_job_end`), so that jobs know no feature.

A listener is called inside the transaction that ended the job (completed, failed or
cancelled), with the job row as it now is and the event type of its kind's end; what it
writes (the event row) commits or rolls back with the job's end."""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.models import Job


class JobEndListener(Protocol):
    def __call__(self, session: Session, settings: Settings, job: Job, event_type: str) -> None:
        """Record the end of the asynchronous job `job` as the event `event_type`."""


_LISTENERS: list[JobEndListener] = []


def on_job_end(listener: JobEndListener) -> None:
    """Startup: call `listener` at the end of every asynchronous job (once, however often this
    is called with it)."""
    if listener not in _LISTENERS:
        _LISTENERS.append(listener)


def job_ended(session: Session, settings: Settings, job: Job, event_type: str) -> None:
    for listener in _LISTENERS:
        listener(session, settings, job, event_type)
