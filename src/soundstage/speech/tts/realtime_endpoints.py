"""Realtime text-to-speech: the WebSocket GET /api/v1/speech/tts/realtime (text streamed in,
speech streamed out) and POST /api/v1/speech/tts/realtime/tokens (a single-use token to open
one from a browser). The protocol is in docs/realtime.md, "Realtime text-to-speech"; its messages
in speech.tts.realtime_messages, the session in speech.tts.realtime."""

from __future__ import annotations

from fastapi import APIRouter, WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.errors import AppError
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.realtime import gate
from soundstage.realtime.messages import read_opening
from soundstage.speech.tts import realtime
from soundstage.speech.tts.realtime_dialect import NativeDialect
from soundstage.speech.tts.realtime_messages import RealtimeTtsOpening
from soundstage.speech.tts.schemas import RealtimeTokenResponse

router = APIRouter(
    prefix=f"{API_V1}/speech/tts/realtime", tags=["Speech"], route_class=UnitOfWorkRoute
)


@router.websocket("")
async def text_to_speech_realtime(
    websocket: WebSocket, db: DatabaseDep, settings: SettingsDep
) -> None:
    """Text streamed in, speech streamed out, over one WebSocket (docs/realtime.md,
    "Realtime text-to-speech"). Authenticated by `Authorization: Bearer <key>` or `?token=` from
    POST /speech/tts/realtime/tokens. Errors end the session with an `error` message and the
    close code 4000 + status; credits (1 per character spoken) are captured when it ends,
    however it ends, for the audio sent."""
    try:
        principal = await gate.authenticate(websocket, realtime.PURPOSE)
        await websocket.accept()
        timeout = settings.realtime.idle_timeout_seconds
        opening = await read_opening(websocket, RealtimeTtsOpening, timeout)
        dialect = NativeDialect(opening)
        await realtime.speak(websocket, principal, opening, db, settings, dialect)
    except WebSocketDisconnect:
        pass
    except AppError as exc:
        await gate.refuse(websocket, exc)


@router.post(
    "/tokens",
    response_model=RealtimeTokenResponse,
)
async def mint_realtime_token(
    db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> RealtimeTokenResponse:
    """A token that opens one realtime text-to-speech session as this key, for a browser
    (which cannot set a WebSocket's headers; never put the key itself in a URL): single
    use, valid `realtime.token_ttl_seconds` (60 s by default)."""
    minted = await run_in_threadpool(gate.mint_token, db, settings, principal, realtime.PURPOSE)
    return RealtimeTokenResponse(token=minted.token, expires_at=minted.expires_at)
