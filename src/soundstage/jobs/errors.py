"""Errors of the jobs feature."""

from soundstage.core.errors import AppError, Conflict, NotFound


class JobNotFound(NotFound):
    pass


class JobNotCancellable(Conflict):
    code = "job_not_cancellable"


class JobCancelledError(Conflict):
    code = "job_cancelled"


class JobTimeout(AppError):
    status = 504
    type = "api_error"
    code = "job_timeout"


class JobCancelled(Exception):
    """Raised inside a handler when its job was cancelled; the worker stops quietly."""
