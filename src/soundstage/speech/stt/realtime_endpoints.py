"""Realtime transcription over a WebSocket: GET /api/v1/speech/stt/realtime (audio frames in,
partial and final transcripts out), and POST /api/v1/speech/stt/realtime/tokens (single-use
tokens for browsers). The protocol is in the README, "Realtime transcription"."""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

from fastapi import APIRouter, WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.errors import AppError, MalformedRequest
from soundstage.core.openapi import errors
from soundstage.core.principal import Principal
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.credits.rates import Operation, for_duration
from soundstage.realtime import gate, live
from soundstage.speech.stt.realtime_session import BYTES_PER_SAMPLE, open_session
from soundstage.speech.stt.schemas import RealtimeToken, SttRealtimeOpening
from soundstage.speech.stt.tasks import REALTIME_KIND

router = APIRouter(
    prefix=f"{API_V1}/speech/stt/realtime", tags=["Speech"], route_class=UnitOfWorkRoute
)

PURPOSE: Final = "stt"
# Credits are reserved a minute of audio at a time (250) as the session's audio grows.
BLOCK_MS: Final = 60_000


@router.post("/tokens", response_model=RealtimeToken, responses=errors())
async def realtime_token(
    db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> RealtimeToken:
    """A token that opens one realtime transcription session as `?token=` (for browsers,
    which cannot set the `Authorization` header on a WebSocket): single use, short-lived."""
    minted = await run_in_threadpool(gate.mint_token, db, settings, principal, PURPOSE)
    return RealtimeToken(token=minted.token, expires_at=minted.expires_at)


@router.websocket("")
async def realtime_transcription(websocket: WebSocket) -> None:
    """Audio frames in, `partial` and `final` transcripts out; charged 250 credits per
    minute of audio received (per started second), when the session ends."""
    try:
        principal = await gate.authenticate(websocket, PURPOSE)
        await websocket.accept()
        opening = await live.read_opening(websocket, SttRealtimeOpening)
        await _transcribe(websocket, principal, opening)
    except WebSocketDisconnect:
        pass
    except AppError as exc:
        await gate.refuse(websocket, exc)


async def _transcribe(
    websocket: WebSocket, principal: Principal, opening: SttRealtimeOpening
) -> None:
    params = opening.model_dump(exclude={"type"})
    bytes_per_second = BYTES_PER_SAMPLE[opening.encoding] * opening.sample_rate
    received = 0
    finals: list[str] = []
    async with live.session(
        websocket,
        principal,
        kind=REALTIME_KIND,
        factory=open_session,
        params=params,
        request=params,
        block_credits=for_duration(Operation.STT, BLOCK_MS),
    ) as session:
        await websocket.send_json(
            {"type": "session.started", "job_id": session.job_id, "session": params}
        )

        async def relay(message: Any) -> None:
            async for out in session.stream(message):
                if out["type"] == "final":
                    finals.append(out["text"])
                await websocket.send_json(out)

        while True:
            audio, commit, close = _parsed(await session.receive())
            if audio:
                received += len(audio)
                # Charged for what was received, also if the client leaves mid-frame.
                credits = for_duration(Operation.STT, received * 1000 // bytes_per_second)
                await session.cover(credits)
                session.used = credits
                await relay(audio)
            if commit:
                await relay({"commit": True})
            if close:
                break
        processing_ms = 0
        async for out in session.finish():
            if out["type"] == "session.stats":
                processing_ms = out["processing_ms"]
                continue
            if out["type"] == "final":
                finals.append(out["text"])
            await websocket.send_json(out)
        duration_ms = received * 1000 // bytes_per_second
        session.result = {
            "duration_ms": duration_ms,
            "processing_ms": processing_ms,
            "transcript": " ".join(finals),
            "utterances": len(finals),
        }
    await websocket.send_json(
        {
            "type": "session.closed",
            "job_id": session.job_id,
            "duration_ms": duration_ms,
            # What was charged: the audio received, or the minimum for the minutes the
            # session was open when that is more.
            "credits_used": session.captured,
            # The slot's time on this session's audio: processing_ms / duration_ms is the
            # session's real-time factor.
            "processing_ms": processing_ms,
        }
    )
    await websocket.close()


def _parsed(message: dict[str, Any]) -> tuple[bytes, bool, bool]:
    """(audio, commit, close) of a client message: a binary frame is audio; a JSON one may
    carry base64 audio (`audio`, OpenAI's `input_audio_buffer.append`; `audio_base_64`,
    ElevenLabs'), `commit` (or OpenAI's `input_audio_buffer.commit`) and `close`."""
    if message.get("bytes") is not None:
        return bytes(message["bytes"]), False, False
    body = live.read_json(message)
    kind = body.get("type") or body.get("message_type")
    encoded = body.get("audio", body.get("audio_base_64"))
    audio = b""
    if encoded is not None:
        if not isinstance(encoded, str):
            raise MalformedRequest("`audio` must be a base64 string.", param="audio")
        try:
            audio = base64.b64decode(encoded, validate=True)
        except binascii.Error as exc:
            raise MalformedRequest(f"`audio` is not valid base64: {exc}", param="audio") from exc
    commit = body.get("commit") is True or kind == "input_audio_buffer.commit"
    close = body.get("close") is True
    if not (audio or commit or close or encoded is not None):
        raise MalformedRequest("Expected an audio frame, `commit` or `close`.", param="message")
    return audio, commit, close
