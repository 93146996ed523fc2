"""ElevenLabs' music composition on the native music job: the piece made by the job in the
exact `output_format` encoding, answered as bytes."""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError
from starlette.responses import Response

from soundstage.compat.common import output_response
from soundstage.compat.elevenlabs.music.schemas import AUTO_FORMAT, ElevenLabsMusicBody
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import InvalidField, ParameterMissing
from soundstage.core.principal import Principal
from soundstage.creative.music import service as music
from soundstage.creative.music.schemas import MusicRequest
from soundstage.jobs.payloads import shown_url
from soundstage.media import encodings


def _request(body: ElevenLabsMusicBody) -> MusicRequest:
    if body.prompt is None:
        raise ParameterMissing("prompt: Describe the music in `prompt`.", param="prompt")
    fields: dict[str, Any] = {"prompt": body.prompt, "instrumental": True, "seed": body.seed}
    if body.music_length_ms is not None:
        # Whole seconds, the nearest (halves up): the native generator makes whole seconds.
        fields["duration_seconds"] = math.floor(body.music_length_ms / 1000 + 0.5)
    try:
        return MusicRequest.model_validate(fields)
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0]) if error["loc"] else "prompt"
        param = {"duration_seconds": "music_length_ms"}.get(name, name)
        raise InvalidField(f"{param}: {error['msg']}.", param=param) from exc


async def compose(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: ElevenLabsMusicBody,
    output_format: str,
) -> Response:
    """The native music job's piece in `output_format` (`auto`: MP3 at 44.1 kHz, 128 kb/s);
    750 credits a minute of music, per started second, charged when it is made."""
    encoding = encodings.encoding(AUTO_FORMAT if output_format == "auto" else output_format)
    answer = await music.generate(db, settings, principal, _request(body), encoding=encoding.name)
    url = shown_url(answer.output_url)
    return await output_response(db, settings, principal, url, encoding.content_type)
