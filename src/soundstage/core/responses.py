"""Rendering of the error envelope, shared by handlers and middleware.

The native envelope is `{"error": {type, code, message, param, request_id}}`. A surface that
speaks another API's dialect (the OpenAI- and ElevenLabs-compatible routes) answers the same
errors in that API's shape: `RequestContextMiddleware` puts the shape of the path's surface in
the request's state (`error_shape_for`), and every error response is rendered through it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from starlette.responses import JSONResponse
from starlette.types import Scope

from soundstage.core.errors import AppError, error_payload

# (the error, the request id) -> the JSON body. Status and headers are the error's own.
ErrorShape = Callable[[AppError, str | None], dict[str, Any]]

_SHAPE_KEY = "error_shape"

T = TypeVar("T")


def request_id_of(scope: Scope) -> str | None:
    state = scope.get("state") or {}
    value = state.get("request_id")
    return value if isinstance(value, str) else None


def error_shape_for(path: str, shapes: Mapping[str, ErrorShape]) -> ErrorShape | None:
    """The shape of the surface serving `path` (`for_surface`)."""
    return for_surface(path, shapes)


def for_surface(path: str, by_prefix: Mapping[str, T]) -> T | None:
    """What `by_prefix` holds for the surface serving `path`: its longest prefix there, a
    prefix matching whole segments (`/v1` serves `/v1/models`, not `/v10`)."""
    best: str | None = None
    for prefix in by_prefix:
        if (path == prefix or path.startswith(prefix.rstrip("/") + "/")) and (
            best is None or len(prefix) > len(best)
        ):
            best = prefix
    return by_prefix[best] if best is not None else None


def use_error_shape(scope: Scope, shape: ErrorShape | None) -> None:
    if shape is not None:
        scope.setdefault("state", {})[_SHAPE_KEY] = shape


def error_response(error: AppError, scope: Scope) -> JSONResponse:
    state = scope.get("state") or {}
    shape: ErrorShape = state.get(_SHAPE_KEY) or error_payload
    return JSONResponse(
        shape(error, request_id_of(scope)), status_code=error.status, headers=error.headers
    )
