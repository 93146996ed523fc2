"""Media objects: saving files, references in job results, signed URLs, reading inputs."""

from __future__ import annotations

import re
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core import fetch
from soundstage.core.db import after_rollback
from soundstage.core.ids import new_id
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.models import MediaObject
from soundstage.storage import repository, signing
from soundstage.storage.backend import make_store
from soundstage.storage.errors import MediaNotFound, MediaUnreachable

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_REF = "$media"


def safe_filename(name: str | None, default: str = "media") -> str:
    base = _UNSAFE.sub("-", Path(name or "").name).strip(".-")[:100]
    return base or default


def save(
    session: Session,
    settings: Settings,
    owner: Principal,
    source: Path,
    *,
    filename: str,
    content_type: str,
    duration_ms: int | None,
    purpose: str,
    job_id: str | None = None,
) -> MediaObject:
    media_id = new_id("med")
    filename = safe_filename(filename)
    key = f"{owner.environment}/{owner.account_id}/{media_id}/{filename}"
    store = make_store(settings)
    size = store.put(key, source)
    # A unit of work that fails after this keeps no copy: its row is rolled back too.
    after_rollback(session, lambda: store.delete(key))
    media = MediaObject(
        id=media_id,
        account_id=owner.account_id,
        environment=owner.environment,
        purpose=purpose,
        filename=filename,
        content_type=content_type,
        size_bytes=size,
        duration_ms=duration_ms,
        storage_key=key,
        job_id=job_id,
        created_at=utcnow(),
    )
    repository.add(session, media)
    return media


def get_owned(session: Session, principal: Principal, media_id: str) -> MediaObject:
    media = repository.get_owned(session, principal.account_id, principal.environment, media_id)
    if media is None:
        raise MediaNotFound(f"No such media: {media_id}", param="media_id")
    return media


def media_ref(media: MediaObject) -> dict[str, str]:
    """How a job result points at media: rendered as a freshly signed URL when shown."""
    return {_REF: media.id, "filename": media.filename}


def render(value: Any, settings: Settings, *, ttl_seconds: int | None = None) -> Any:
    """Replace media references in a job result by signed URLs, valid `ttl_seconds` from now
    (default `media.url_ttl_seconds`, 24 h)."""
    if isinstance(value, dict):
        if _REF in value:
            reference, filename = value[_REF], value["filename"]
            return signing.signed_url(settings, reference, filename, ttl_seconds=ttl_seconds)[0]
        return {k: render(v, settings, ttl_seconds=ttl_seconds) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, settings, ttl_seconds=ttl_seconds) for v in value]
    return value


def url_of(settings: Settings, media: MediaObject) -> tuple[str, datetime]:
    return signing.signed_url(settings, media.id, media.filename)


def open_signed(
    session: Session, settings: Settings, media_id: str, filename: str, raw_query: str
) -> MediaObject:
    """The object behind a signed URL (403 if the URL is tampered with or expired)."""
    signing.verify(settings, media_id, filename, raw_query)
    media = repository.get(session, media_id)
    if media is None or media.filename != filename:
        raise MediaNotFound(f"No such media: {media_id}")
    return media


def local_path(settings: Settings, media: MediaObject) -> Path:
    return make_store(settings).local_path(media.storage_key)


def own_media_in_url(settings: Settings, url: str) -> tuple[str, str, str] | None:
    """(media_id, filename, raw query) when `url` is one of this service's media URLs."""
    base = settings.media_base_url + "/"
    if not url.startswith(base):
        return None
    parts = urlsplit(url)
    segments = url[len(base) :].split("?", 1)[0].split("/")
    if len(segments) != 2:
        return None
    return segments[0], unquote(segments[1]), parts.query


def read_input(session: Session, settings: Settings, url: str, dest: Path, *, param: str) -> Path:
    """Bring an input URL's bytes to `dest`: the service's own media URLs straight from
    storage (no HTTP), anything else through the SSRF-safe fetcher."""
    own = own_media_in_url(settings, url)
    if own is not None:
        media_id, filename, query = own
        try:
            media = open_signed(session, settings, media_id, filename, query)
        except (signing.InvalidMediaSignature, signing.MediaUrlExpired, MediaNotFound) as exc:
            raise MediaUnreachable(f"{param}: {exc.message}", param=param) from exc
        shutil.copyfile(local_path(settings, media), dest)
        return dest
    fetch.fetch_to_file(url, dest, policy=fetch_policy(settings), param=param)
    return dest


def fetch_policy(settings: Settings) -> fetch.FetchPolicy:
    return fetch.FetchPolicy(
        max_bytes=settings.fetch_max_bytes,
        timeout_seconds=settings.fetch_timeout_seconds,
        allow_hosts=frozenset(settings.fetch_allow_hosts),
    )


_CONTENT_TYPES = {
    "mp3": "audio/mpeg",
    "wav": "audio/wav",
    "flac": "audio/flac",
    "ogg": "audio/ogg",
    "aiff": "audio/aiff",
}


def content_type_of(format_name: str, has_video: bool) -> str:
    """A MIME type from the demuxer's name (PyAV names such as "mov,mp4,m4a,3gp,3g2,mj2")."""
    names = set(format_name.split(","))
    for name, mime in _CONTENT_TYPES.items():
        if name in names:
            return mime
    if "mp4" in names or "mov" in names:
        return "video/mp4" if has_video else "audio/mp4"
    if "webm" in names or "matroska" in names:
        return "video/webm" if has_video else "audio/webm"
    return "application/octet-stream"


def save_upload(
    session: Session, settings: Settings, principal: Principal, path: Path, filename: str | None
) -> MediaObject:
    """Keep an uploaded file if a decoder can read its audio (422 `invalid_media` if not)."""
    from soundstage.core import audio

    info = audio.probe(path, param="file")
    return save(
        session,
        settings,
        principal,
        path,
        filename=safe_filename(filename, "upload"),
        content_type=content_type_of(info.format_name, info.has_video),
        duration_ms=info.duration_ms,
        purpose="upload",
    )
