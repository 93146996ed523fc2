"""HTTP endpoints of forced alignment: POST /api/v1/speech/alignment."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Response

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.jobs import inputs
from soundstage.jobs.schemas import JobAccepted
from soundstage.speech.alignment import service
from soundstage.speech.alignment.schemas import AlignmentRequest, AlignmentResponse

router = APIRouter(
    prefix=f"{API_V1}/speech/alignment", tags=["Speech"], route_class=UnitOfWorkRoute
)


@router.post(
    "",
    response_model=AlignmentResponse | JobAccepted,
    responses={
        200: {
            "description": "The aligned words and characters (AlignmentResponse); with "
            "`Prefer: respond-async`, the accepted job (JobAccepted, `status: processing`).",
        },
        **errors(402, 409, 504),
    },
)
async def forced_alignment(
    body: AlignmentRequest,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    response: Response,
    prefer: Annotated[
        str | None,
        Header(
            description="`respond-async` (RFC 7240): answer at once with the accepted job, "
            "once the audio has been fetched and measured and its price reserved, as POST "
            "/api/v1/speech/stt does."
        ),
    ] = None,
) -> AlignmentResponse | JobAccepted:
    """Beyond the spec: place a known transcript on the recording that speaks it: when each
    word and character of `text` is said, with a confidence per word and a `loss` for the
    whole (a transcript the audio does not say is answered, with a loss near 1). Charged as
    speech to text, 250 credits per minute of audio (per started second), once aligned."""
    if prefer is not None and "respond-async" in prefer.lower():
        response.headers["Preference-Applied"] = "respond-async"
        return await inputs.in_fetch_thread(
            settings, service.submit_async, db, settings, principal, body
        )
    return await service.align(db, settings, principal, body)
