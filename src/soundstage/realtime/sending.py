"""A deadline on everything the server sends over a WebSocket: a client that stops reading
fills its socket's buffers, and the server's next send would wait for it forever, holding
the session's slot. Past the deadline the send fails as a lost connection (Starlette then
raises WebSocketDisconnect(1006)), so the session ends and frees its slot."""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
from contextlib import suppress

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("soundstage.realtime")


class ClientNotReading(ConnectionError):
    """The client did not take a message within the send timeout (an OSError: the server
    treats it as a lost connection)."""


class SendTimeoutMiddleware:
    """Gives each WebSocket send `seconds` to be taken by the connection (HTTP passes
    untouched: its responses are bounded by the server's own timeouts)."""

    def __init__(self, app: ASGIApp, *, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        seconds = self.seconds

        async def send_within(message: Message) -> None:
            try:
                await asyncio.wait_for(send(message), seconds)
            except TimeoutError:
                log.info("WebSocket client %s stopped reading: session ended", scope.get("client"))
                _abort_connection(send)
                raise ClientNotReading(f"The client took nothing for {seconds:g} s.") from None

        await self.app(scope, receive, send_within)


def _abort_connection(send: Send) -> None:
    """Reset the client's connection at once: a closing handshake, or even a plain close,
    would wait behind what the client never reads, keeping the connection and its buffers
    (megabytes of audio) for minutes. uvicorn's `send` is its protocol's method, whose
    transport is reached so; another server's connection ends when the session does."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    if transport is None or not callable(getattr(transport, "abort", None)):
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:  # linger 0: the close resets the connection, dropping unsent data
        with suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
