"""ElevenLabs' dubbing on the native dubbing job: a dub is submitted as the native
`POST /api/v1/speech/dubbing` submits it (the upload kept as media first), read back as its
job, and its audio answered from the job's output."""

from __future__ import annotations

from typing import Final
from urllib.parse import unquote, urlsplit

import pycountry
from fastapi import UploadFile
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.responses import Response

from soundstage.compat.common import kept_upload
from soundstage.compat.elevenlabs.dubbing.errors import DubbingNotFound
from soundstage.compat.elevenlabs.dubbing.schemas import (
    DubStatus,
    ElevenLabsDubbingCreated,
    ElevenLabsDubbingForm,
    ElevenLabsDubbingMediaMetadata,
    ElevenLabsDubbingMetadata,
)
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError, Conflict, InvalidField, ParameterMissing
from soundstage.core.principal import Principal
from soundstage.jobs import service as jobs
from soundstage.jobs.errors import JobNotFound
from soundstage.jobs.payloads import MediaRef
from soundstage.models import Job
from soundstage.models.jobs import JobStatus
from soundstage.speech.dubbing import service as dubbing
from soundstage.speech.dubbing.schemas import DubbingRequest
from soundstage.storage import service as storage
from soundstage.storage.errors import MediaExpired

AUTO: Final = "auto"
# The native request's fields as ElevenLabs names them (a URL's field is set per request).
_PARAMS: Final = {"source_language": "source_lang", "target_language": "target_lang"}
_STATUSES: Final[dict[str, DubStatus]] = {
    JobStatus.QUEUED: "dubbing",
    JobStatus.PROCESSING: "dubbing",
    JobStatus.COMPLETED: "dubbed",
    JobStatus.FAILED: "failed",
    JobStatus.CANCELLED: "failed",
}


def _name(form: ElevenLabsDubbingForm, file: UploadFile | None, url: str | None) -> str:
    if form.name is not None:
        return form.name
    if file is not None and file.filename:
        return file.filename
    path = unquote(urlsplit(url or "").path).rstrip("/")
    return path.rsplit("/", 1)[-1] or "Untitled dub"


async def create(
    db: Database,
    settings: Settings,
    principal: Principal,
    form: ElevenLabsDubbingForm,
    file: UploadFile | None,
) -> ElevenLabsDubbingCreated:
    """Submit the native dubbing job (standard tier) on the upload or the URL: the media
    fetched and measured now, so that undecodable media or a bad URL is 422 and a short
    balance 402 here."""
    if file is not None and form.source_url is not None:
        raise InvalidField(
            "file: Send the media as `file` or its URL as `source_url`, not both.", param="file"
        )
    if form.target_lang is None:
        raise ParameterMissing("target_lang: Name the dub's language.", param="target_lang")
    if file is not None:
        media_param = "file"
        url = await kept_upload(db, settings, principal, file, param="file")
    elif form.source_url is not None:
        media_param, url = "source_url", form.source_url
    else:
        raise ParameterMissing(
            "file: Send the media as `file` (or its URL as `source_url`).", param="file"
        )
    names = {**_PARAMS, "media_url": media_param}
    try:
        request = DubbingRequest.model_validate(
            {
                "media_url": url,
                "source_language": form.source_lang or AUTO,
                "target_language": form.target_lang,
            }
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else "media_url"
        param = names.get(field, field)
        raise InvalidField(f"{param}: {error['msg']}.", param=param) from exc
    try:
        accepted = await dubbing.submit(
            db, settings, principal, request, name=_name(form, file, form.source_url)
        )
    except AppError as exc:
        if exc.param in names:  # the native field, named as ElevenLabs names it
            exc.param = names[exc.param]
        raise
    return ElevenLabsDubbingCreated(
        dubbing_id=accepted.job_id,
        expected_duration_sec=round(accepted.estimated_completion_ms / 1000, 3),
    )


def _dub(session: Session, principal: Principal, dubbing_id: str) -> Job:
    """The caller's dubbing job of that id (404 `dubbing_not_found` for any other)."""
    try:
        job = jobs.get(session, principal, dubbing_id)
    except JobNotFound:
        job = None
    if job is None or job.kind != dubbing.DUBBING_KIND:
        raise DubbingNotFound(f"No such dub: {dubbing_id}", param="dubbing_id")
    return job


def _output(job: Job) -> MediaRef:
    return MediaRef.model_validate((job.result or {})["output_url"])


def _media_metadata(
    session: Session, principal: Principal, job: Job
) -> ElevenLabsDubbingMediaMetadata | None:
    try:
        media = storage.get_owned(session, principal, _output(job).media_id)
    except MediaExpired:
        return None  # its retention passed: the dub is no longer there to describe
    duration_ms = int((job.result or {}).get("duration_ms") or 0)
    return ElevenLabsDubbingMediaMetadata(
        content_type=media.content_type, duration=round(duration_ms / 1000, 3)
    )


def get(session: Session, principal: Principal, dubbing_id: str) -> ElevenLabsDubbingMetadata:
    job = _dub(session, principal, dubbing_id)
    status = _STATUSES[job.status]
    asked = str(job.request.get("source_language") or AUTO)
    source = (job.result or {}).get("source_language") or (None if asked == AUTO else asked)
    error = job.error or {}
    return ElevenLabsDubbingMetadata(
        dubbing_id=job.id,
        name=str(job.request.get("name") or "Untitled dub"),
        status=status,
        source_language=source,
        target_languages=[str(job.request["target_language"])],
        created_at=job.created_at,
        media_metadata=_media_metadata(session, principal, job) if status == "dubbed" else None,
        error=str(error.get("message")) if status == "failed" and error else None,
    )


def _primary(code: str) -> str:
    """A language code's primary subtag, two letters where ISO 639-1 has them (`spa` is
    `es`)."""
    primary = code.strip().replace("_", "-").split("-")[0].lower()
    if len(primary) == 3:
        entry = pycountry.languages.get(alpha_3=primary)
        return str(getattr(entry, "alpha_2", None) or primary)
    return primary


def audio(
    session: Session, settings: Settings, principal: Principal, dubbing_id: str, language: str
) -> Response:
    """The dubbed file, as the native job wrote it (like its input: MP3 for lossy audio, FLAC
    or WAV for lossless, the video with the dub as its sound): 404 for a language it was not
    dubbed into, 409 before it is dubbed (or when it failed)."""
    job = _dub(session, principal, dubbing_id)
    target = str(job.request["target_language"])
    if _primary(language) != target:
        raise DubbingNotFound(
            f"Dub {dubbing_id} is into {target!r}, not {language!r}.", param="language_code"
        )
    status = _STATUSES[job.status]
    if status != "dubbed":
        raise Conflict(
            f"Dub {dubbing_id} is {'still dubbing' if status == 'dubbing' else 'failed'}; "
            "its audio comes once GET /v1/dubbing/{dubbing_id} answers `dubbed`.",
            param="dubbing_id",
        )
    media = storage.get_owned(session, principal, _output(job).media_id)
    return storage.media_response(settings, media, None, None)
