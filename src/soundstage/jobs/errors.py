"""Errors of the jobs feature."""

from soundstage.core.errors import AppError, Conflict, InternalError, NotFound


class JobNotFound(NotFound):
    """No such job."""

    code = "job_not_found"


class JobNotCancellable(Conflict):
    """The job has finished (or its stream was charged): it can no longer be cancelled."""

    code = "job_not_cancellable"


class JobCancelledError(Conflict):
    """The job was cancelled before it finished."""

    code = "job_cancelled"


class JobTimeout(AppError):
    """The job did not finish in time; it was cancelled and not charged."""

    status = 504
    type = "api_error"
    code = "job_timeout"


class WorkerLost(InternalError):
    """The worker running the job died too many times; the job failed and was not charged."""

    code = "worker_lost"


class JobCancelled(Exception):
    """Raised inside a handler when its job was cancelled; the worker stops quietly."""
