"""HTTP endpoint of the DAW export: POST /api/v1/creative/daw."""

from __future__ import annotations

from fastapi import APIRouter

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.creative.daw import service
from soundstage.creative.daw.schemas import DawExportRequest
from soundstage.jobs import inputs
from soundstage.jobs.schemas import JobAccepted

router = APIRouter(prefix=f"{API_V1}/creative/daw", tags=["Creative"], route_class=UnitOfWorkRoute)


@router.post("", response_model=JobAccepted, responses=errors(402, 422))
async def export_to_daw(
    body: DawExportRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> JobAccepted:
    """Compile tracks into a DAW project: broadcast WAVE stems of equal length and an AAF or
    OMF session, in one ZIP. Asynchronous: every track is fetched and measured first (a
    track that cannot be fetched or decoded is 422 naming it, `tracks[i].audio_url`), the
    price of the session they make is reserved (402 if the balance is short), and the answer
    (200) is the accepted job: `processing`, `estimated_completion_ms`, `credits_reserved`,
    `duration_ms` (the session's length). `GET /api/v1/jobs/{job_id}` or the `daw.completed`
    webhook give the result: the signed `download_url` of the ZIP, `session_file` (its path
    in the ZIP), `format`, `media`, `gain_mode`, `sample_rate`, `bit_depth`, `duration_ms`
    and `tracks` (each `name`, `stem` path, `start_ms`, `duration_ms`, `gain_db`, `pan`,
    `channels`); `daw.failed` and `daw.cancelled` announce the other ends. Charged 750
    credits per minute of output (the longest track's end, per started second) when the ZIP
    is ready; a failed or cancelled export is not charged. The session lasts at most
    `daw.max_session_ms` (30 min) and the export weighs at most `daw.max_output_bytes`
    (2 GiB): 422 `session_too_long` / `export_too_large` at submit. The ZIP expires with the
    storage retention (`outputs_expire_at`)."""
    return await inputs.in_fetch_thread(
        settings, service.submit_export, db, settings, principal, body
    )
