"""HTTP endpoint of text-to-speech: POST /api/v1/speech/tts."""

from __future__ import annotations

from fastapi import APIRouter, Request

from soundstage.core.deps import PrincipalDep
from soundstage.core.openapi import errors
from soundstage.speech.tts import service
from soundstage.speech.tts.schemas import TtsRequest, TtsResponse

router = APIRouter(tags=["Speech"])


@router.post("/speech/tts", response_model=TtsResponse, responses=errors(402, 409, 504))
async def text_to_speech(
    body: TtsRequest, request: Request, principal: PrincipalDep
) -> TtsResponse:
    """Convert text to speech with a voice of the catalog. Charged 1 credit per character,
    only when the audio is ready; the signed `output_url` expires 24 h after issue."""
    return await service.synthesize(
        request.app.state.db, request.app.state.settings, principal, body
    )
