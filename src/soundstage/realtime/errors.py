"""The errors a realtime session ends with (sent as an `error` message, then a close frame
with code 4000 + status)."""

from __future__ import annotations

from soundstage.core.errors import AppError


class RealtimeBusy(AppError):
    """Every realtime slot of the API process is taken; retry shortly (close code 4503)."""

    status = 503
    type = "api_error"
    code = "realtime_busy"


class TooManySessions(AppError):
    """The account already holds as many realtime sessions as it may on this API process
    (close code 4429)."""

    status = 429
    type = "rate_limit_error"
    code = "too_many_sessions"


class SessionTimeout(AppError):
    """The session was idle longer than the idle timeout, or reached its longest length
    (close code 4408)."""

    status = 408
    code = "session_timeout"


class InvalidToken(AppError):
    """The realtime token is unknown, expired, already used, or for another endpoint."""

    status = 401
    type = "authentication_error"
    code = "invalid_realtime_token"


class SessionLost(AppError):
    """The process serving a realtime session stopped (its slot process or its API process
    died); what it had not yet delivered is not charged."""

    status = 500
    type = "api_error"
    code = "session_lost"
