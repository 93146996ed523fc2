"""Media objects: saving files, references in job results, signed URLs, reading inputs."""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from fastapi.responses import Response
from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core import tenancy
from soundstage.core.db import Database, after_commit, after_rollback
from soundstage.core.ids import new_id
from soundstage.core.principal import Principal
from soundstage.core.timeutil import rfc3339, utcnow
from soundstage.media import fetch
from soundstage.models import MediaObject
from soundstage.models.media import MediaPurpose
from soundstage.storage import repository, serving, signing
from soundstage.storage.backend import MediaObjectMissing, make_store
from soundstage.storage.errors import (
    InputMediaExpired,
    MediaExpired,
    MediaNotFound,
    MediaUnreachable,
    StorageQuotaExceeded,
)

log = logging.getLogger("soundstage.storage")
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
    purpose: MediaPurpose,
    job_id: str | None = None,
) -> MediaObject:
    media_id = new_id("med")
    filename = safe_filename(filename)
    key = f"{owner.environment}/{owner.account_id}/{media_id}/{filename}"
    store = make_store(settings)
    # The bytes go in before the unit's first write (SQLite takes its lock there), and a
    # unit of work that fails after this keeps no copy: its row and usage roll back too.
    size = store.put(key, source)
    after_rollback(session, lambda: store.delete(key))
    _take_quota(
        session, settings, owner, size, param="file" if purpose == MediaPurpose.UPLOAD else None
    )
    now = utcnow()
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
        created_at=now,
        expires_at=now + timedelta(seconds=settings.storage.retention_seconds),
    )
    repository.add(session, media)
    return media


def quota_of(settings: Settings, environment: str) -> int:
    quotas = settings.storage.quota_bytes
    return quotas.production if environment == "production" else quotas.sandbox


def _take_quota(
    session: Session, settings: Settings, owner: Principal, size: int, *, param: str | None
) -> None:
    """Count the object against the owner's quota in one conditional UPDATE (413 if it
    would pass it); the unit's rollback gives the bytes back."""
    quota = quota_of(settings, owner.environment)
    if not repository.take(session, owner, size, quota):
        used = repository.used(session, owner)
        raise StorageQuotaExceeded(
            f"Storing {size:,} more bytes would pass this account's storage quota "
            f"({used:,} of {quota:,} bytes in use in {owner.environment}). Stored media "
            f"expire {settings.storage.retention_seconds // 86400} days after they are made.",
            param=param,
        )


def storage_used(session: Session, principal: Principal) -> int:
    return repository.used(session, principal)


def _check_live(media: MediaObject) -> MediaObject:
    if media.deleted_at is not None and media.deleted_at < media.expires_at:
        raise MediaExpired(
            f"The media {media.id} were deleted at {rfc3339(media.deleted_at)}.",
            param="media_id",
        )
    if media.deleted_at is not None or media.expires_at <= utcnow():
        raise MediaExpired(
            f"The media {media.id} expired at {rfc3339(media.expires_at)} and were "
            "deleted; stored media are kept for a limited time (see expires_at).",
            param="media_id",
        )
    return media


def _delete(session: Session, media: MediaObject, now: datetime) -> bool:
    """Mark one object deleted and free its bytes from the quota, once (a conditional
    UPDATE: of several sweepers only one frees it)."""
    if not repository.mark_deleted(session, media.id, now):
        return False
    repository.free(session, media, media.size_bytes)
    return True


def sweep_expired(db: Database, settings: Settings) -> int:
    """Delete up to `storage.sweep_batch` expired objects: their bytes first (nobody reads
    expired media), then their rows are marked deleted and their quota freed. Idempotent
    and safe with several sweepers. Returns how many this call marked."""
    now = utcnow()
    with db.read_session() as session:
        batch = [
            (media.id, media.storage_key)
            for media in repository.expired(session, now, settings.storage.sweep_batch)
        ]
    if not batch:
        return 0
    store = make_store(settings)
    for _, key in batch:
        store.delete(key)
    marked = 0
    with db.session() as session:
        for media_id, _ in batch:
            media = repository.get(session, media_id)
            if media is not None and _delete(session, media, now):
                marked += 1
    log.info("storage sweep deleted %d expired media objects", marked)
    return marked


def discard_job_outputs(session: Session, settings: Settings, job_id: str) -> None:
    """Delete a job's outputs (a failed job keeps none of those it stored before failing;
    an owner deletes a generation's): their rows are marked deleted and their quota freed
    in `session`, their bytes deleted once it commits."""
    store = make_store(settings)
    now = utcnow()
    keys = [
        media.storage_key
        for media in repository.live_outputs_of_job(session, job_id)
        if _delete(session, media, now)
    ]

    def delete_bytes() -> None:
        for key in keys:
            store.delete(key)

    if keys:
        after_commit(session, delete_bytes)


def get_owned(session: Session, principal: Principal, media_id: str) -> MediaObject:
    """The caller's media object: 404 if unknown or another's, 410 once expired."""
    media = repository.get_owned(session, principal, media_id)
    if media is None:
        raise MediaNotFound(f"No such media: {media_id}", param="media_id")
    return _check_live(media)


def owned_media(
    session: Session, principal: Principal, media_ids: list[str]
) -> dict[str, MediaObject]:
    """The caller's media objects of `media_ids`, by id (another's, or an unknown id, absent),
    live or not (see is_live)."""
    return {m.id: m for m in repository.owned_by_id(session, principal, media_ids)}


def is_live(media: MediaObject) -> bool:
    """Whether the media may still be read (neither expired nor deleted)."""
    return media.deleted_at is None and media.expires_at > utcnow()


def media_ref(media: MediaObject) -> dict[str, str]:
    """How a job result points at media: rendered as a freshly signed URL when shown."""
    return {_REF: media.id, "filename": media.filename, "expires_at": media.expires_at.isoformat()}


def earliest_expiry(value: Any) -> datetime | None:
    """When the first of the media a job result points at expires (None: no media, or
    references made before media expired)."""
    found: list[datetime] = []

    def visit(item: Any) -> None:
        if isinstance(item, dict):
            if _REF in item:
                if "expires_at" in item:
                    found.append(datetime.fromisoformat(item["expires_at"]))
                return
            for child in item.values():
                visit(child)
        elif isinstance(item, list):
            for child in item:
                visit(child)

    visit(value)
    return min(found, default=None)


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
    """The object behind a signed URL (403 if the URL is tampered with or expired, 410 if
    the media themselves expired)."""
    signing.verify(settings, media_id, filename, raw_query)
    media = repository.get(session, media_id)
    if media is None or media.filename != filename:
        raise MediaNotFound(f"No such media: {media_id}", param="media_id")
    return _check_live(media)


def check_stored(settings: Settings, media: MediaObject) -> None:
    """410 if the bytes of live media are gone (a sweeper removed them meanwhile)."""
    if make_store(settings).size(media.storage_key) is None:
        raise _gone(media)


def stored_copy(settings: Settings, media: MediaObject, dest: Path) -> Path:
    """The media's bytes as a local file to read: the store's own file when it is this
    machine's directory (read in place), else a copy written to `dest` as it comes (S3,
    streamed to scratch, never held whole). 410 if a sweeper removed them meanwhile."""
    store = make_store(settings)
    own = store.local_file(media.storage_key)
    if own is not None:
        return own
    try:
        return store.download_to(media.storage_key, dest)
    except MediaObjectMissing as exc:
        raise _gone(media) from exc


def media_response(
    settings: Settings,
    media: MediaObject,
    range_header: str | None,
    if_range: str | None,
    *,
    content_type: str | None = None,
) -> Response:
    """Live media as a response, Range requests honoured (storage/serving.py); 410 if a
    sweeper removed the bytes meanwhile. Blocking: call it from a thread."""
    try:
        return serving.object_response(
            make_store(settings),
            media.storage_key,
            content_type=content_type or media.content_type,
            filename=media.filename,
            range_header=range_header,
            if_range=if_range,
        )
    except MediaObjectMissing as exc:
        raise _gone(media) from exc


def _gone(media: MediaObject) -> MediaExpired:
    return MediaExpired(f"The media {media.id} expired and were deleted.", param="media_id")


def stored_size(settings: Settings, media: MediaObject) -> int | None:
    """The size of the media's bytes in the store; None once they are deleted."""
    return make_store(settings).size(media.storage_key)


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


def duration_of_own_media(session: Session, settings: Settings, url: str) -> int | None:
    """The stored duration behind one of this service's own media URLs, for checks made
    before any input is fetched; None for other URLs or when the URL is no good (the job
    that fetches it reports why)."""
    own = own_media_in_url(settings, url)
    if own is None:
        return None
    try:
        media = open_signed(session, settings, *own)
    except (signing.InvalidMediaSignature, signing.MediaUrlExpired, MediaNotFound, MediaExpired):
        return None
    return media.duration_ms


def read_input(session: Session, settings: Settings, url: str, dest: Path, *, param: str) -> Path:
    """Bring an input URL's bytes to `dest`: the service's own media URLs straight from
    storage (no HTTP), anything else through the SSRF-safe fetcher."""
    own = own_media_in_url(settings, url)
    if own is not None:
        media = _signed_input(session, settings, own, param)
        try:
            make_store(settings).download_to(media.storage_key, dest)
        except MediaObjectMissing as exc:
            raise InputMediaExpired(f"{param}: {_gone(media).message}", param=param) from exc
        return dest
    fetch.fetch_to_file(url, dest, policy=fetch_policy(settings), param=param)
    return dest


def callers_input(
    session: Session, settings: Settings, principal: Principal, url: str, *, param: str
) -> MediaObject | None:
    """The caller's own live media behind one of this service's media URLs (an upload, an
    output), to be read where it is stored rather than copied; None for any other URL
    (another account's media are copied like any URL's bytes). A broken, expired or
    tampered URL of this service is 422 naming `param`, as read_input answers."""
    own = own_media_in_url(settings, url)
    if own is None:
        return None
    media = _signed_input(session, settings, own, param)
    return media if tenancy.belongs_to(media, principal) else None


def _signed_input(
    session: Session, settings: Settings, own: tuple[str, str, str], param: str
) -> MediaObject:
    """The live media behind a signed URL taken as an input, its bytes in the store; errors
    name the input's field."""
    media_id, filename, query = own
    try:
        media = open_signed(session, settings, media_id, filename, query)
        check_stored(settings, media)
    except (signing.InvalidMediaSignature, signing.MediaUrlExpired, MediaNotFound) as exc:
        raise MediaUnreachable(f"{param}: {exc.message}", param=param) from exc
    except MediaExpired as exc:
        raise InputMediaExpired(f"{param}: {exc.message}", param=param) from exc
    return media


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
    from soundstage.media import audio

    info = audio.probe(path, param="file")
    return save(
        session,
        settings,
        principal,
        path,
        filename=safe_filename(filename, "upload"),
        content_type=content_type_of(info.format_name, info.has_video),
        duration_ms=info.duration_ms,
        purpose=MediaPurpose.UPLOAD,
    )


def check_store_ready(settings: Settings) -> None:
    """Whether the media store can take files now (/readyz); raises otherwise. The local
    store: its directory exists (made if missing) and is writable; S3: a HEAD of the bucket
    answered within `readiness_timeout_seconds`."""
    make_store(settings).check_ready(settings.readiness_timeout_seconds)


# Cached renders (voice previews, talent demos): files a worker renders once and every node
# serves, kept in the media store beside the media (keys `previews/…`, `demos/…`, apart from
# the media's `<environment>/…`), outside any account's quota and never swept.


def render_exists(settings: Settings, key: str) -> bool:
    """Whether the rendered file `key` is in the media store. Blocking (an S3 HEAD)."""
    return make_store(settings).size(key) is not None


def keep_render(settings: Settings, key: str, source: Path) -> None:
    """Store a rendered file under `key` (replacing it whole, never seen half-written)."""
    make_store(settings).put(key, source)


def render_response(
    settings: Settings,
    key: str,
    *,
    content_type: str,
    filename: str,
    range_header: str | None,
    headers: dict[str, str] | None = None,
) -> Response | None:
    """A rendered file as a response, Range requests honoured; None when there is none.
    Blocking: call it from a thread."""
    try:
        return serving.object_response(
            make_store(settings),
            key,
            content_type=content_type,
            filename=filename,
            range_header=range_header,
            headers=headers,
        )
    except MediaObjectMissing:
        return None
