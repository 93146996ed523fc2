"""ElevenLabs' forced alignment onto the native one (speech.alignment): the upload kept as
media, aligned with the language detected, the native milliseconds given as seconds and each
word's confidence as its loss."""

from __future__ import annotations

from fastapi import UploadFile

from soundstage.compat.common import kept_upload
from soundstage.compat.elevenlabs.forced_alignment.schemas import (
    ElevenLabsAlignedCharacter,
    ElevenLabsAlignedWord,
    ElevenLabsForcedAlignment,
)
from soundstage.compat.elevenlabs.schemas import native_request
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.speech.alignment import service as alignment
from soundstage.speech.alignment.schemas import AlignmentRequest


async def align(
    db: Database, settings: Settings, principal: Principal, file: UploadFile, text: str
) -> ElevenLabsForcedAlignment:
    url = await kept_upload(db, settings, principal, file, param="file")
    request = native_request(
        AlignmentRequest, {"audio_url": url, "text": text}, {"audio_url": "file"}
    )
    answer = await alignment.align(db, settings, principal, request)
    return ElevenLabsForcedAlignment(
        characters=[
            ElevenLabsAlignedCharacter(
                text=c.character, start=c.start_ms / 1000, end=c.end_ms / 1000
            )
            for c in answer.characters
        ],
        words=[
            ElevenLabsAlignedWord(
                text=w.word,
                start=w.start_ms / 1000,
                end=w.end_ms / 1000,
                loss=round(1 - w.confidence, 3),
            )
            for w in answer.words
        ],
        loss=answer.loss,
    )
