"""ElevenLabs' text to dialogue: POST /elevenlabs/v1/text-to-dialogue, `/stream`,
`/with-timestamps` and `/stream/with-timestamps`, onto the native dialogue
(POST /api/v1/speech/dialogue)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from soundstage.compat.elevenlabs.dialogue import service
from soundstage.compat.elevenlabs.dialogue.schemas import (
    ElevenLabsDialogueBody,
    ElevenLabsDialogueWithTimestamps,
)
from soundstage.compat.elevenlabs.params import (
    EnableLogging,
    StreamFormatQuery,
    WholeFormatQuery,
    content_types,
)
from soundstage.compat.elevenlabs.schemas import DEFAULT_FORMAT, StreamFormat, WholeFormat
from soundstage.compat.elevenlabs.service import Speech
from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.routing import UnitOfWorkRoute

router = APIRouter(
    prefix="/elevenlabs/v1/text-to-dialogue",
    tags=["ElevenLabs compatible"],
    route_class=UnitOfWorkRoute,
)

JOB_ID_HEADER = "Soundstage-Job-Id"


def _response(speech: Speech) -> StreamingResponse:
    return StreamingResponse(
        speech.chunks,
        media_type=speech.content_type,
        headers={JOB_ID_HEADER: speech.job_id, "Cache-Control": "no-store"},
    )


@router.post(
    "",
    response_class=StreamingResponse,
    responses={200: {"content": content_types(WholeFormat)}, **errors(402, 404, 409, 504)},
)
async def text_to_dialogue(
    body: ElevenLabsDialogueBody,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: WholeFormatQuery = DEFAULT_FORMAT,
    enable_logging: EnableLogging = None,
) -> StreamingResponse:
    """The dialogue in `output_format`, sent as it is synthesized (WAV whole, with its
    sizes): each input read by its voice, 300 ms between turns. 1 credit a character of
    every input, as text to speech."""
    return _response(await service.convert(db, settings, principal, body, output_format))


@router.post(
    "/stream",
    response_class=StreamingResponse,
    responses={200: {"content": content_types(StreamFormat)}, **errors(402, 404, 409, 504)},
)
async def text_to_dialogue_stream(
    body: ElevenLabsDialogueBody,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: StreamFormatQuery = DEFAULT_FORMAT,
    enable_logging: EnableLogging = None,
) -> StreamingResponse:
    """The dialogue streamed as it is synthesized (chunked), turn by turn."""
    return _response(await service.convert(db, settings, principal, body, output_format))


@router.post(
    "/stream/with-timestamps",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}}, **errors(402, 404, 409, 504)},
)
async def text_to_dialogue_stream_with_timestamps(
    body: ElevenLabsDialogueBody,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: StreamFormatQuery = DEFAULT_FORMAT,
    enable_logging: EnableLogging = None,
) -> StreamingResponse:
    """One JSON object a line, `{audio_base64, alignment, normalized_alignment,
    voice_segments}`: the audio as it is made (alignment null, no segments), then a last line
    with empty audio, the alignment of every input's characters and the voice segments."""
    speech = await service.stream_with_timestamps(db, settings, principal, body, output_format)
    return _response(speech)


@router.post(
    "/with-timestamps",
    response_model=ElevenLabsDialogueWithTimestamps,
    responses=errors(402, 404, 409, 504),
)
async def text_to_dialogue_with_timestamps(
    body: ElevenLabsDialogueBody,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: WholeFormatQuery = DEFAULT_FORMAT,
    enable_logging: EnableLogging = None,
) -> ElevenLabsDialogueWithTimestamps:
    """The audio (base64), when each character of every input is spoken (as text to speech
    with timestamps) and each input's voice segment."""
    return await service.convert_with_timestamps(db, settings, principal, body, output_format)
