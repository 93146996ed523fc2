"""ElevenLabs' forced alignment: POST /elevenlabs/v1/forced-alignment, onto the native
POST /api/v1/speech/alignment."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile

from soundstage.compat.elevenlabs.forced_alignment import service
from soundstage.compat.elevenlabs.forced_alignment.schemas import ElevenLabsForcedAlignment
from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.routing import UnitOfWorkRoute
from soundstage.speech.alignment.schemas import MAX_TEXT_CHARACTERS

router = APIRouter(
    prefix="/elevenlabs/v1/forced-alignment",
    tags=["ElevenLabs compatible"],
    route_class=UnitOfWorkRoute,
)


@router.post("", response_model=ElevenLabsForcedAlignment, responses=errors(402, 409, 413, 504))
async def forced_alignment(
    file: Annotated[UploadFile, File(description="The recording, at most an hour.")],
    text: Annotated[
        str,
        Form(min_length=1, max_length=MAX_TEXT_CHARACTERS, description="What it says."),
    ],
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
) -> ElevenLabsForcedAlignment:
    """When each character and word of `text` is said in the recording, in seconds, with a
    loss per word and for the whole (near 1 when the audio says something else). Charged as
    speech to text: 250 credits a minute of audio (per started second)."""
    return await service.align(db, settings, principal, file, text)
