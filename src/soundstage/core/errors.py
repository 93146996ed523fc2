"""The one error family and its envelope: {"error": {type, code, message, param, request_id}}."""

from __future__ import annotations

import errno
from typing import Any

from pydantic import BaseModel


class AppError(Exception):
    """Base of every error the API answers with. Features subclass it."""

    status: int = 400
    type: str = "invalid_request_error"
    code: str = "invalid_request"

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        status: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.headers = headers or {}


class MalformedRequest(AppError):
    status = 400
    code = "malformed_request"


class AuthenticationError(AppError):
    status = 401
    type = "authentication_error"
    code = "invalid_api_key"


class InsufficientCredits(AppError):
    status = 402
    type = "billing_error"
    code = "insufficient_credits"


class PermissionDenied(AppError):
    status = 403
    type = "permission_error"
    code = "forbidden"


class NotFound(AppError):
    status = 404
    code = "resource_missing"


class MethodNotAllowed(AppError):
    status = 405
    code = "method_not_allowed"


class Conflict(AppError):
    status = 409
    code = "conflict"


class PayloadTooLarge(AppError):
    status = 413
    code = "request_too_large"


class InvalidField(AppError):
    status = 422
    code = "parameter_invalid"


class IdempotencyError(AppError):
    type = "idempotency_error"


class RateLimited(AppError):
    status = 429
    type = "rate_limit_error"
    code = "rate_limited"


class ServiceUnavailable(AppError):
    status = 503
    type = "api_error"
    code = "service_unavailable"


class StorageFull(ServiceUnavailable):
    """The service's disk is full: a dependency failure, retried later, never the user's."""

    code = "storage_full"

    def __init__(self, message: str = "The service is out of disk space; retry later.") -> None:
        super().__init__(message, headers={"Retry-After": "60"})


def is_disk_full(exc: BaseException) -> bool:
    """Whether `exc`, or an exception it was raised from, is ENOSPC / EDQUOT (disk or quota
    full): libraries re-raise OS errors as their own."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if getattr(current, "errno", None) in (errno.ENOSPC, errno.EDQUOT):
            return True
        current = current.__cause__ or current.__context__
    return False


class InternalError(AppError):
    status = 500
    type = "api_error"
    code = "internal_error"


class ErrorBody(BaseModel):
    type: str
    code: str
    message: str
    param: str | None = None
    request_id: str | None = None


class ErrorEnvelope(BaseModel):
    """What every non-2xx answer carries."""

    error: ErrorBody


def error_payload(error: AppError, request_id: str | None) -> dict[str, Any]:
    return {
        "error": {
            "type": error.type,
            "code": error.code,
            "message": error.message,
            "param": error.param,
            "request_id": request_id,
        }
    }
