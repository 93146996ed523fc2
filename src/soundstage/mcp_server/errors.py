"""The API's errors over MCP. A tool's failure is a tool result (`isError`) carrying the API's
error envelope, status included, never a protocol error: the `AppError` a service raised, or
the request model's validation read as the HTTP API reads a body (`parameter_invalid` naming
the field). A resource's is the protocol error MCP defines for resources."""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST, CallToolResult, TextContent
from pydantic import ValidationError

from soundstage.core.db import is_overloaded
from soundstage.core.errors import (
    AppError,
    InternalError,
    NotFound,
    Overloaded,
    StorageFull,
    error_payload,
    field_error,
    is_disk_full,
)
from soundstage.core.logs import request_id_var

log = logging.getLogger("soundstage")


def api_error(exc: BaseException) -> AppError:
    """The API's error for what a tool raised (the SDK wraps it: its cause): an AppError as
    is, a validation error as the HTTP API words it, a full disk or a busy database as the
    HTTP API answers them, anything else a 500 (a bug: logged)."""
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    if isinstance(cause, AppError):
        return cause
    if isinstance(cause, ValidationError):
        return validation_error(cause)
    if is_disk_full(cause):
        return StorageFull()
    if is_overloaded(cause):
        return Overloaded("The database is at capacity; retry in a moment.", retry_after_seconds=1)
    request_id = request_id_var.get()
    log.error("unhandled error in an MCP tool (%s)", request_id, exc_info=cause)
    quote = f"; quote {request_id} when reporting it" if request_id else ""
    return InternalError(f"An internal error occurred{quote}.")


def validation_error(error: ValidationError) -> AppError:
    """The first error of a request model's validation, as one 422 naming its field (what the
    HTTP API answers for the same body)."""
    first = error.errors()[0]
    return field_error(first, tuple(first.get("loc", ())))


def envelope(error: AppError) -> dict[str, Any]:
    """The API's error envelope, with the HTTP status the same call would have answered."""
    payload = error_payload(error, request_id_var.get())
    payload["error"]["status"] = error.status
    return payload


def tool_error(error: AppError) -> CallToolResult:
    """A tool call that failed: its code and message for the model to read, the envelope as
    structured content for a program."""
    where = f" ({error.param})" if error.param else ""
    text = f"{error.code} [{error.status}]{where}: {error.message}"
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=envelope(error),
        is_error=True,
    )


def resource_error(error: AppError) -> ResourceError:
    """A resource read that failed: not found (MCP's invalid-params error) or another."""
    text = f"{error.code}: {error.message}"
    return ResourceNotFoundError(text) if isinstance(error, NotFound) else ResourceError(text)


def refused(error: AppError) -> MCPError:
    """A request refused before it reached its handler (the key, the rate limit)."""
    # MCP's JSON-RPC error code (an int), positional: `code=` is the API's codes' keyword.
    return MCPError(INVALID_REQUEST, f"{error.code}: {error.message}", envelope(error))


def as_text(data: Any) -> TextContent:
    return TextContent(type="text", text=json.dumps(data, ensure_ascii=False))
