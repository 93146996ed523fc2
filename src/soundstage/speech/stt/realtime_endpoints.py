"""Realtime transcription over a WebSocket: GET /api/v1/speech/stt/realtime (audio frames in,
partial and final transcripts out), and POST /api/v1/speech/stt/realtime/tokens (single-use
tokens for browsers). The protocol is in docs/realtime.md, "Realtime transcription"; its messages
in speech.stt.realtime_messages, the session in speech.stt.realtime."""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter, WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.errors import AppError
from soundstage.core.openapi import errors
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.realtime import gate
from soundstage.realtime.messages import read_opening
from soundstage.speech.stt import realtime
from soundstage.speech.stt.realtime_messages import SttRealtimeOpening
from soundstage.speech.stt.schemas import RealtimeToken

router = APIRouter(
    prefix=f"{API_V1}/speech/stt/realtime", tags=["Speech"], route_class=UnitOfWorkRoute
)

PURPOSE: Final = realtime.PURPOSE


@router.post("/tokens", response_model=RealtimeToken, responses=errors())
async def realtime_token(
    db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> RealtimeToken:
    """A token that opens one realtime transcription session as `?token=` (for browsers,
    which cannot set the `Authorization` header on a WebSocket): single use, short-lived."""
    minted = await run_in_threadpool(gate.mint_token, db, settings, principal, PURPOSE)
    return RealtimeToken(token=minted.token, expires_at=minted.expires_at)


@router.websocket("")
async def realtime_transcription(websocket: WebSocket, settings: SettingsDep) -> None:
    """Audio frames in, `partial` and `final` transcripts out; charged 250 credits per
    minute of audio received (per started second), when the session ends."""
    try:
        principal = await gate.authenticate(websocket, PURPOSE)
        await websocket.accept()
        timeout = settings.realtime.idle_timeout_seconds
        opening = await read_opening(websocket, SttRealtimeOpening, timeout)
        await realtime.transcribe(websocket, principal, opening)
    except WebSocketDisconnect:
        pass
    except AppError as exc:
        await gate.refuse(websocket, exc)
