"""The one error family and its envelope: {"error": {type, code, message, param, request_id}}.

Every code the API can answer is declared once, by the AppError subclass that carries it
(`status`, `type`, `code`, and its docstring's first paragraph as the meaning): a class
whose body sets `code` is entered in the register (`declared()`), which the docs' error
table is generated from (`soundstage errors`). Abstract families (NotFound,
AuthenticationError, IdempotencyError) declare no code and cannot be raised themselves.
"""

from __future__ import annotations

import errno
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel


@dataclass(frozen=True)
class ErrorCode:
    """One row of the register: what an error code means and how it is answered."""

    status: int
    type: str
    code: str
    meaning: str
    declared_by: str


_DECLARED: list[type[AppError]] = []


class AppError(Exception):
    """Base of every error the API answers with. Features subclass it, one class per code."""

    status: int = 400
    type: str = "invalid_request_error"
    code: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The service's own codes only: a class a test or a plugin defines is not the API's.
        if cls.__dict__.get("code") and cls.__module__.startswith("soundstage."):
            _DECLARED.append(cls)

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
        self.code: str = code if code is not None else type(self).code
        if not self.code:
            raise TypeError(f"{type(self).__name__} declares no error code: raise a subclass")
        if status is not None:
            self.status = status
        self.headers = headers or {}


def declared() -> list[ErrorCode]:
    """Every code declared by the AppError subclasses imported so far, by status then code
    (import every module first to see them all: `soundstage.error_catalog.all_codes()`)."""
    rows = [
        ErrorCode(
            status=cls.status,
            type=cls.type,
            code=cls.code,
            meaning=_meaning(cls),
            declared_by=f"{cls.__module__}.{cls.__qualname__}",
        )
        for cls in _DECLARED
    ]
    return sorted(rows, key=lambda row: (row.status, row.code))


def _meaning(cls: type[AppError]) -> str:
    """The first paragraph of the class's own docstring, on one line."""
    doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
    return " ".join(doc.split("\n\n")[0].split())


class MalformedRequest(AppError):
    """The request cannot be read: invalid JSON, a body that is not a JSON object or not sent
    as `application/json`, an unreadable form, or control characters in the URL."""

    status = 400
    code = "malformed_request"


REALM: Final = "soundstage"
_CLASS_DEFAULT: Final = "(the class's)"


class AuthenticationError(AppError):
    """A 401 (abstract: raise one of its subclasses). Every 401 carries an RFC 6750
    `WWW-Authenticate: Bearer realm="soundstage"` challenge, with `error="invalid_token"`
    when a key was sent and refused (or `bearer_error` when given)."""

    status = 401
    type = "authentication_error"
    bearer_error: str | None = "invalid_token"

    def __init__(self, message: str, *, bearer_error: str | None = _CLASS_DEFAULT) -> None:
        error = type(self).bearer_error if bearer_error == _CLASS_DEFAULT else bearer_error
        challenge = f'Bearer realm="{REALM}"'
        if error is not None:
            description = "".join(c for c in message if c not in '"\\' and " " <= c <= "~")
            challenge += f', error="{error}", error_description="{description}"'
        super().__init__(message, headers={"WWW-Authenticate": challenge})


class MissingApiKey(AuthenticationError):
    """No `Authorization: Bearer` header was sent."""

    code = "missing_api_key"
    bearer_error = None


class MalformedApiKey(AuthenticationError):
    """The `Authorization` header is not `Bearer <key>`, or the key does not start with
    `sk_sandbox_` or `sk_live_`."""

    code = "malformed_api_key"


class InvalidApiKey(AuthenticationError):
    """No such API key."""

    code = "invalid_api_key"


class ApiKeyRevoked(AuthenticationError):
    """The API key was revoked."""

    code = "api_key_revoked"


class InsufficientCredits(AppError):
    """The balance cannot cover the work's price: refused before any work starts."""

    status = 402
    type = "billing_error"
    code = "insufficient_credits"


class PermissionDenied(AppError):
    """The key may not do this."""

    status = 403
    type = "permission_error"
    code = "forbidden"


class SandboxOnly(PermissionDenied):
    """A sandbox test helper (`/api/v1/sandbox/…`) called with a production key."""

    code = "sandbox_only"


class NotFound(AppError):
    """A 404 (abstract): each resource declares its own `<resource>_not_found` code, with
    `param` naming the id field and the message naming the id. Another account's or the
    other environment's object is unknown too."""

    status = 404


class RouteNotFound(NotFound):
    """No route has this URL (whatever the method): a wrong path, not a missing object."""

    code = "route_not_found"


class MethodNotAllowed(AppError):
    """The path exists but not with this method; `Allow` lists the methods it takes."""

    status = 405
    code = "method_not_allowed"


class Conflict(AppError):
    """The object's state does not allow this now."""

    status = 409
    code = "conflict"


class PayloadTooLarge(AppError):
    """The request body is over the size cap (JSON 1 MiB, uploads 500 MB by default)."""

    status = 413
    code = "request_too_large"


class InvalidField(AppError):
    """A field or parameter has an invalid value (wrong type, out of bounds, not one of
    the allowed values); `param` names it."""

    status = 422
    code = "parameter_invalid"


class ParameterMissing(InvalidField):
    """A required field or parameter is missing; `param` names it."""

    code = "parameter_missing"


class ParameterUnknown(InvalidField):
    """A field the endpoint does not take was sent; `param` names it."""

    code = "parameter_unknown"


class IdempotencyError(AppError):
    """Misuse of an `Idempotency-Key` (abstract: see its subclasses)."""

    type = "idempotency_error"


class IdempotencyKeyReused(IdempotencyError):
    """The `Idempotency-Key` was used before with a different request."""

    status = 422
    code = "idempotency_key_reused"


class IdempotencyKeyInUse(IdempotencyError):
    """A request with this `Idempotency-Key` is still running; retry after `Retry-After`."""

    status = 409
    code = "idempotency_key_in_use"


class RateLimited(AppError):
    """The rate limit is spent (the account's in this environment, shared by its keys; without
    a key, the client address's); retry after `Retry-After` seconds."""

    status = 429
    type = "rate_limit_error"
    code = "rate_limited"


class ServiceUnavailable(AppError):
    """A dependency (database, Redis) is down, or a file the service renders on first
    request (a voice preview, a demo) is not ready yet; retry after `Retry-After` seconds."""

    status = 503
    type = "api_error"
    code = "service_unavailable"


class Overloaded(ServiceUnavailable):
    """The API process is at capacity (its requests at work, or the database's connections
    and locks, are all taken for longer than a request may wait): refused at once, nothing
    done; retry after `Retry-After` seconds."""

    code = "overloaded"

    def __init__(self, message: str, *, retry_after_seconds: int) -> None:
        super().__init__(message, headers={"Retry-After": str(retry_after_seconds)})


class StorageFull(ServiceUnavailable):
    """The service's disk is full: a dependency failure, retried later, never the user's."""

    code = "storage_full"

    def __init__(self, message: str = "The service is out of disk space; retry later.") -> None:
        super().__init__(message, headers={"Retry-After": "60"})


def field_error(first: Mapping[str, Any], loc: tuple[Any, ...]) -> AppError:
    """One pydantic error of a request model, as the API answers it: 422 naming the field
    at `loc` (its path in the model), `parameter_missing`, `parameter_unknown` or
    `parameter_invalid`."""
    param = param_name(loc) or None
    kind = first.get("type", "")
    message = "Unknown field" if kind == "extra_forbidden" else first.get("msg", "Invalid value")
    cls = {"missing": ParameterMissing, "extra_forbidden": ParameterUnknown}.get(kind, InvalidField)
    return cls(f"{param}: {message}." if param else f"{message}.", param=param)


def param_name(parts: tuple[Any, ...]) -> str:
    """A field's path as the API names it: `tracks[0].audio_url`."""
    name = ""
    for part in parts:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name


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
    """An unexpected error: a bug, logged with the request id."""

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
