"""The media store as the job system sees it (jobs.wiring.MediaStore): a job's inputs and
outputs, installed by the composition root (soundstage/app_tasks.py)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.media import fetch
from soundstage.media.audio import MediaInfo
from soundstage.models.media import MediaPurpose
from soundstage.storage import service as storage
from soundstage.storage.errors import (
    InputMediaExpired,
    MediaExpired,
    MediaNotFound,
    MediaUnreachable,
)


class JobMedia:
    def save_output(
        self,
        session: Session,
        settings: Settings,
        principal: Principal,
        path: Path,
        *,
        content_type: str,
        duration_ms: int | None,
        job_id: str,
    ) -> dict[str, Any]:
        media = storage.save(
            session,
            settings,
            principal,
            path,
            filename=path.name,
            content_type=content_type,
            duration_ms=duration_ms,
            purpose=MediaPurpose.OUTPUT,
            job_id=job_id,
        )
        return storage.media_ref(media)

    def discard_job_outputs(self, session: Session, settings: Settings, job_id: str) -> None:
        storage.discard_job_outputs(session, settings, job_id)

    def sweep_expired(self, db: Database, settings: Settings) -> int:
        return storage.sweep_expired(db, settings)

    def render(self, value: Any, settings: Settings, *, ttl_seconds: int | None) -> Any:
        return storage.render(value, settings, ttl_seconds=ttl_seconds)

    def earliest_expiry(self, value: Any) -> datetime | None:
        return storage.earliest_expiry(value)

    def fetch_policy(self, settings: Settings) -> fetch.FetchPolicy:
        return storage.fetch_policy(settings)

    def is_own_url(self, settings: Settings, url: str) -> bool:
        return storage.own_media_in_url(settings, url) is not None

    def callers_input(
        self,
        session: Session,
        settings: Settings,
        principal: Principal,
        url: str,
        *,
        param: str,
        dest: Path,
    ) -> tuple[str, Path] | None:
        own = storage.callers_input(session, settings, principal, url, param=param)
        if own is None:
            return None
        try:
            return own.id, storage.stored_copy(settings, own, dest)
        except MediaExpired as exc:
            raise InputMediaExpired(f"{param}: {exc.message}", param=param) from exc

    def read_input(
        self, session: Session, settings: Settings, url: str, dest: Path, *, param: str
    ) -> Path:
        return storage.read_input(session, settings, url, dest, param=param)

    def kept_input(
        self,
        session: Session,
        settings: Settings,
        principal: Principal,
        media_id: str,
        *,
        param: str,
        dest: Path,
    ) -> Path:
        try:
            media = storage.get_owned(session, principal, media_id)
            return storage.stored_copy(settings, media, dest)
        except (MediaNotFound, MediaExpired) as exc:
            raise MediaUnreachable(f"{param}: {exc.message}", param=param) from exc

    def keep_input(
        self,
        session: Session,
        settings: Settings,
        principal: Principal,
        path: Path,
        *,
        url: str,
        info: MediaInfo,
    ) -> str:
        media = storage.save(
            session,
            settings,
            principal,
            path,
            filename=storage.safe_filename(Path(urlsplit(url).path).name, "input"),
            content_type=storage.content_type_of(info.format_name, info.has_video),
            duration_ms=info.duration_ms,
            purpose=MediaPurpose.INPUT,
        )
        return media.id
