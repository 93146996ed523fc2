"""What every realtime protocol shares: client messages read (JSON objects validated into a
direction's models, a bad one refused naming its field) and server messages sent (each a
model, `ServerMessage`; the `error` message in the API's envelope)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar, Literal, TypeVar

from fastapi import WebSocket
from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.websockets import WebSocketDisconnect

from soundstage.core.errors import AppError, MalformedRequest
from soundstage.realtime.errors import SessionTimeout

Opening = TypeVar("Opening", bound=BaseModel)


class ServerMessage(BaseModel):
    """A JSON message the server sends, its fields in the order sent. `type` names it (each
    direction's server messages are a union discriminated on it)."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    # Whether fields that are None are left out of the message (an optional field the
    # protocol shows only when it has a value) rather than sent as null.
    omit_none: ClassVar[bool] = False

    def wire(self) -> dict[str, Any]:
        """The message as sent: JSON values, under their protocol names (aliases)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=self.omit_none)


class ErrorDetail(BaseModel):
    model_config = ConfigDict(frozen=True)

    status: int
    type: str
    code: str
    message: str
    param: str | None


class ErrorMessage(ServerMessage):
    """The last message of a session that an error ended, before the close frame (code
    4000 + `status`, the reason its `code`)."""

    type: Literal["error"] = "error"
    error: ErrorDetail

    @classmethod
    def of(cls, error: AppError) -> ErrorMessage:
        detail = ErrorDetail(
            status=error.status,
            type=error.type,
            code=error.code,
            message=error.message,
            param=error.param,
        )
        return cls(error=detail)


async def send(websocket: WebSocket, message: ServerMessage) -> None:
    await websocket.send_json(message.wire())


def validation_error(exc: ValidationError, what: str) -> tuple[str | None, str]:
    """(the field at fault, a message naming it) of a client message's first error."""
    first = exc.errors()[0]
    param = ""
    for part in first.get("loc", ()):
        param += f"[{part}]" if isinstance(part, int) else (f".{part}" if param else str(part))
    problem = "Unknown field" if first.get("type") == "extra_forbidden" else first.get("msg")
    return param or None, f"Invalid {what}: {param}: {problem}." if param else f"{problem}."


async def read_opening(websocket: WebSocket, model: type[Opening], timeout: float) -> Opening:
    """A session's opening message (the first the client sends), within `timeout` seconds
    (SessionTimeout), as `model`: MalformedRequest naming the field (close 4400) when it is
    not one, before anything is reserved or charged."""
    try:
        message = await asyncio.wait_for(websocket.receive(), timeout)
    except TimeoutError:
        raise SessionTimeout(f"No opening message within {timeout:g} s.") from None
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    body = read_json(dict(message), param="opening")
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        param, text = validation_error(exc, "opening message")
        raise MalformedRequest(text, param=param or "opening") from None


def read_json(message: dict[str, Any], *, param: str = "message") -> dict[str, Any]:
    """A client's text message as a JSON object (MalformedRequest otherwise)."""
    text = message.get("text")
    if text is None:
        raise MalformedRequest("Expected a JSON text message here.", param=param)
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise MalformedRequest(f"The message is not valid JSON: {exc}", param=param) from exc
    if not isinstance(body, dict):
        raise MalformedRequest("The message must be a JSON object.", param=param)
    return body
