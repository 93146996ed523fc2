"""Voice isolation as the endpoint sees it: run the job and answer its stems."""

from __future__ import annotations

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.jobs import service as jobs
from soundstage.speech.isolator.schemas import IsolationRequest, IsolationResponse
from soundstage.speech.isolator.tasks import KIND, IsolationJob


async def isolate(
    db: Database, settings: Settings, principal: Principal, body: IsolationRequest
) -> IsolationResponse:
    # Priced by the audio's duration, which the job measures and reserves before working.
    job = await jobs.run(
        db,
        settings,
        principal,
        KIND,
        IsolationJob.model_validate(body.model_dump()),
        credits_needed=0,
    )
    return IsolationResponse.of(job)
