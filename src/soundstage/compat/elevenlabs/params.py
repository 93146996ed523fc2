"""Query parameters and answers the ElevenLabs-compatible routes share: the output formats
(made exactly, each with its Content-Type) and the parameters accepted and ignored."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args, get_origin

from fastapi import Query

from soundstage.compat.elevenlabs.schemas import StreamFormat, WholeFormat
from soundstage.core.params import QueryBool, QueryInt
from soundstage.media import encodings

IgnoredBool = Annotated[QueryBool | None, Query(description="Accepted, ignored.")]
EnableLogging = IgnoredBool
Latency = Annotated[QueryInt | None, Query(ge=0, le=4, description="Accepted, ignored: 0 to 4.")]
WholeFormatQuery = Annotated[
    WholeFormat,
    Query(description="ElevenLabs' `codec_samplerate_bitrate` name, made exactly."),
]
StreamFormatQuery = Annotated[
    StreamFormat,
    Query(description="ElevenLabs' `codec_samplerate_bitrate` name (no WAV), made exactly."),
]
ANSWERED_WHOLE = (
    "ElevenLabs' `codec_samplerate_bitrate` name, made exactly by the native job and "
    "answered whole (WAV with its sizes)."
)


def format_names(formats: Any) -> list[str]:
    """The names of an `output_format` type: a Literal, or a union of Literals."""
    if get_origin(formats) is Literal:
        return list(get_args(formats))
    return [name for part in get_args(formats) for name in format_names(part)]


def content_types(formats: Any) -> dict[str, Any]:
    """A speech route's answers: the Content-Type of each `output_format` it takes, as
    `media.encodings` names them (mu-law `audio/basic`, A-law `audio/x-alaw-basic`, …)."""
    return {encodings.encoding(name).content_type: {} for name in format_names(formats)}
