"""HTTP endpoint of ElevenLabs' music composition (the SDK 2.78's `music.compose`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args, get_origin

from fastapi import APIRouter, Query
from fastapi.responses import FileResponse, Response

from soundstage.compat.elevenlabs.music import service
from soundstage.compat.elevenlabs.music.schemas import ElevenLabsMusicBody, MusicFormat
from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.params import QueryBool
from soundstage.core.routing import UnitOfWorkRoute
from soundstage.media import encodings

router = APIRouter(
    prefix="/elevenlabs/v1/music", tags=["ElevenLabs compatible"], route_class=UnitOfWorkRoute
)


def _names(formats: Any) -> list[str]:
    """The names of an `output_format` type: a Literal, or a union of Literals."""
    if get_origin(formats) is Literal:
        return list(get_args(formats))
    return [name for part in get_args(formats) for name in _names(part)]


def _content_types() -> dict[str, Any]:
    """The Content-Type of each `output_format` (`auto` is MP3)."""
    names = [name for name in _names(MusicFormat) if name != "auto"]
    return {encodings.encoding(name).content_type: {} for name in names}


@router.post(
    "",
    response_class=FileResponse,
    responses={200: {"content": _content_types()}, **errors(402, 409, 422, 504)},
)
async def compose_music(
    body: ElevenLabsMusicBody,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: Annotated[
        MusicFormat,
        Query(
            description="ElevenLabs' `codec_samplerate_bitrate` name, made exactly by the "
            "native job (`auto`: mp3_44100_128)."
        ),
    ] = "auto",
    enable_logging: Annotated[QueryBool | None, Query(description="Accepted, ignored.")] = None,
) -> Response:
    """An instrumental piece from `prompt` by the native music generator (genre, mood, tempo,
    key and instruments read from the prompt), `music_length_ms` long to the nearest second
    (10 s to 5 min; default 30 s), made in `output_format` at its exact rate and bit rate and
    answered whole. 750 credits a minute of music, per started second."""
    return await service.compose(db, settings, principal, body, output_format)
