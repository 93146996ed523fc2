"""Rendering of the error envelope, shared by handlers and middleware."""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import Scope

from soundstage.core.errors import AppError, error_payload


def request_id_of(scope: Scope) -> str | None:
    state = scope.get("state") or {}
    value = state.get("request_id")
    return value if isinstance(value, str) else None


def error_response(error: AppError, scope: Scope) -> JSONResponse:
    return JSONResponse(
        error_payload(error, request_id_of(scope)), status_code=error.status, headers=error.headers
    )
