"""HTTP endpoints of the OpenAI-compatible audio API, all under `/v1`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from soundstage.compat.openai import realtime, speech, transcriptions
from soundstage.compat.openai import service as catalog
from soundstage.compat.openai.schemas import (
    AudioModels,
    AudioVoices,
    ModelList,
    ModelOut,
    SpeechRequest,
    TranscriptFormat,
)
from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.errors import AppError, InvalidField, ParameterUnknown
from soundstage.core.openapi import errors
from soundstage.core.routing import UnitOfWorkRoute
from soundstage.realtime import gate
from soundstage.speech.stt import realtime as stt_realtime

TAG = "OpenAI compatible"
JOB_ID_HEADER = "Soundstage-Job-Id"

router = APIRouter(prefix="/v1", tags=[TAG], route_class=UnitOfWorkRoute)

_TRANSCRIPT_TYPES: dict[TranscriptFormat, str] = {
    "json": "application/json",
    "verbose_json": "application/json",
    "diarized_json": "application/json",
    "text": "text/plain",
    "srt": "application/x-subrip",
    "vtt": "text/vtt",
}
# The form fields OpenAI's transcription takes, as documented (read by transcriptions.read_form).
_FORM_FIELDS: dict[str, Any] = {
    "file": {"type": "string", "format": "binary"},
    "model": {"type": "string", "example": "whisper-1"},
    "language": {"type": "string", "example": "en"},
    "prompt": {"type": "string"},
    "response_format": {"type": "string", "enum": list(_TRANSCRIPT_TYPES)},
    "temperature": {"type": "number"},
    "timestamp_granularities[]": {
        "type": "array",
        "items": {"type": "string", "enum": ["word", "segment"]},
    },
    "stream": {"type": "boolean"},
}
# A translation takes fewer (OpenAI's: no language, granularities or streaming; not diarized).
_TRANSLATION_FORMATS = [name for name in _TRANSCRIPT_TYPES if name != "diarized_json"]
_TRANSLATION_FORM_FIELDS: dict[str, Any] = {
    **{
        name: kind
        for name, kind in _FORM_FIELDS.items()
        if name in transcriptions.TRANSLATION_FIELDS
    },
    "response_format": {"type": "string", "enum": _TRANSLATION_FORMATS},
}


def _multipart_form(fields: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI request body of a multipart form with these fields (`file`, `model`
    required), read by hand in the endpoint."""
    schema = {"type": "object", "required": ["file", "model"], "properties": fields}
    return {
        "requestBody": {
            "required": True,
            "content": {"multipart/form-data": {"schema": schema}},
        }
    }


@router.get("/models", response_model=ModelList)
def list_models(principal: PrincipalDep) -> ModelList:
    """OpenAI's model list: the speech ids (`soundstage-tts` and its aliases `tts-1`,
    `tts-1-hd`, `gpt-4o-mini-tts`) and the transcription ids (`soundstage-stt` and its
    aliases `whisper-1`, `gpt-4o-transcribe`, `gpt-4o-mini-transcribe`,
    `gpt-4o-transcribe-diarize`). The voice decides the engine; every transcription id
    uses the service's Whisper model."""
    return catalog.list_models()


@router.get("/models/{model_id}", response_model=ModelOut, responses=errors(404))
def get_model(model_id: str, principal: PrincipalDep) -> ModelOut:
    """One model of the list; 404 `model_not_found` for any other id."""
    return catalog.get_model(model_id)


@router.get("/audio/models", response_model=AudioModels)
def list_audio_models(principal: PrincipalDep) -> AudioModels:
    """Beyond OpenAI's API, for apps that ask (Open WebUI): the speech models, in the shape
    they read, `{"models": [{"id", "name"}]}`."""
    return catalog.audio_models()


@router.get("/audio/voices", response_model=AudioVoices)
def list_audio_voices(db: DatabaseDep, principal: PrincipalDep) -> AudioVoices:
    """Beyond OpenAI's API, for apps that ask (Open WebUI): what `voice` takes, in the shape
    they read, `{"voices": [{"id", "name", ...}]}`: OpenAI's names first (each with the
    catalog voice it speaks with), then every catalog voice by its id."""
    return catalog.audio_voices(db)


@router.post(
    "/audio/speech",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "The audio as it is synthesized (chunked), in `response_format`; "
            "with `stream_format: sse`, server-sent events (`speech.audio.delta` with base64 "
            "audio, then `speech.audio.done`). The header `Soundstage-Job-Id` names the job.",
            "content": {
                "audio/mpeg": {},
                "audio/opus": {},
                "audio/aac": {},
                "audio/flac": {},
                "audio/wav": {},
                "audio/pcm": {},
                "text/event-stream": {},
            },
        },
        **errors(402, 404, 504),
    },
)
async def create_speech(
    body: SpeechRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> StreamingResponse:
    """OpenAI's text to speech: `input` (at most 4,096 characters, 1 credit each as
    spoken, aliases in place; a stream that ends early is charged for the audio it sent),
    `model`, `voice` (an OpenAI name, a catalog voice id or `{"id"}`; 404 `voice_not_found`
    otherwise), `response_format` (mp3, opus, aac, flac, wav, pcm: raw 24 kHz 16-bit mono
    little-endian), `speed` 0.25 to 4.0, `instructions` (ignored), `stream_format` (audio,
    sse)."""
    spoken = await speech.speak(db, settings, principal, body)
    return StreamingResponse(
        spoken.body(),
        media_type=spoken.content_type,
        headers={JOB_ID_HEADER: spoken.job_id, "Cache-Control": "no-store"},
    )


async def _transcript(
    request: Request,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    task: transcriptions.Task,
) -> Response:
    upload = await transcriptions.read_form(request, task)
    try:
        answer = await transcriptions.transcribe(db, settings, principal, upload, task)
    finally:
        await run_in_threadpool(upload.file.file.close)
    if answer.events is not None:
        return StreamingResponse(
            transcriptions.sse(answer.events), media_type=speech.SSE_CONTENT_TYPE
        )
    if answer.body is not None:
        return JSONResponse(answer.body)
    assert answer.text is not None
    return PlainTextResponse(answer.text, media_type=answer.media_type)


_TRANSCRIPT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The transcript in `response_format`: JSON (`json`, `verbose_json`, "
        "`diarized_json`), plain text (`text`, `srt`, `vtt`), or with `stream=true` "
        "server-sent events (`transcript.text.delta`... `transcript.text.done`).",
        "content": {media: {} for media in {*_TRANSCRIPT_TYPES.values(), "text/event-stream"}},
    },
    **errors(402, 404, 413, 504),
}
_TRANSLATION_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The English text in `response_format`: JSON (`json`, `verbose_json`) "
        "or plain text (`text`, `srt`, `vtt`).",
        "content": {_TRANSCRIPT_TYPES[name]: {} for name in _TRANSLATION_FORMATS},
    },
    **errors(402, 404, 413, 504),
}


@router.post(
    "/audio/transcriptions",
    response_class=Response,
    responses=_TRANSCRIPT_RESPONSES,
    openapi_extra=_multipart_form(_FORM_FIELDS),
)
async def create_transcription(
    request: Request, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> Response:
    """OpenAI's speech to text, on the native job (250 credits a minute of audio, per
    started second, charged once the transcript is made): multipart `file`, `model` (a
    transcription model of GET /v1/models), `language` (ISO 639-1; absent: detected),
    `response_format`, `timestamp_granularities[]` (`word`, `segment`; verbose_json),
    `stream`. `prompt`, `temperature`, `include[]`, `chunking_strategy` and the known
    speakers are accepted and ignored."""
    return await _transcript(request, db, settings, principal, "transcribe")


@router.post(
    "/audio/translations",
    response_class=Response,
    responses=_TRANSLATION_RESPONSES,
    openapi_extra=_multipart_form(_TRANSLATION_FORM_FIELDS),
)
async def create_translation(
    request: Request, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> Response:
    """OpenAI's speech translation into English (Whisper's own), priced as a
    transcription: multipart `file`, `model`, `response_format` (not `diarized_json`),
    `prompt` and `temperature` (ignored)."""
    return await _transcript(request, db, settings, principal, "translate")


@router.websocket("/realtime")
async def realtime_transcription(websocket: WebSocket, settings: SettingsDep) -> None:
    """OpenAI's Realtime API transcription session (`?intent=transcription`;
    docs/openai.md): the native realtime transcription (same credits, limits and slots) in
    OpenAI's events. The key in `Authorization: Bearer`, never in the URL."""
    try:
        principal = await gate.authenticate(websocket, stt_realtime.PURPOSE)
        query = websocket.query_params
        for name in query:
            if name not in ("intent", "model"):
                raise ParameterUnknown(f"Unknown query parameter: {name}.", param=name)
        if query.get("intent", "transcription") != "transcription":
            raise InvalidField(
                "intent: This server serves transcription sessions only: `?intent=transcription`.",
                param="intent",
            )
        config = realtime.Config()
        model = query.get("model")
        if model is not None:
            config = realtime.Config(model=catalog.model(model, "transcription").id)
        beta = "realtime=v1" in websocket.headers.get("openai-beta", "")
        await websocket.accept()
        timeout = settings.realtime.idle_timeout_seconds
        await realtime.serve(websocket, principal, config, beta=beta, timeout=timeout)
    except WebSocketDisconnect:
        pass
    except AppError as exc:
        await gate.refuse(websocket, exc, realtime.ErrorEvent.of)
