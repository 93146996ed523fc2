"""HTTP endpoints of media: uploads, media objects, and the signed media URLs themselves."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import FileResponse, Response
from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.deps import DatabaseDep, PrincipalDep, SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.params import raw_query
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.models import MediaObject
from soundstage.storage import service
from soundstage.storage.schemas import MediaOut

router = APIRouter(prefix=API_V1, tags=["Media"], route_class=UnitOfWorkRoute)
public_router = APIRouter(prefix="/media", tags=["Media"], route_class=UnitOfWorkRoute)


def media_out(settings: Settings, media: MediaObject) -> MediaOut:
    """The object with a URL signed now, and when that URL expires."""
    url, expires_at = service.url_of(settings, media)
    return MediaOut(
        id=media.id,
        purpose=media.purpose,
        filename=media.filename,
        content_type=media.content_type,
        size_bytes=media.size_bytes,
        duration_ms=media.duration_ms,
        url=url,
        url_expires_at=expires_at,
        created_at=media.created_at,
        expires_at=media.expires_at,
    )


@router.post("/uploads", response_model=MediaOut, responses=errors(413, 422))
async def upload_media(
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    file: Annotated[UploadFile, File(description="An audio or video file.")],
) -> MediaOut:
    """Store an audio or video file (multipart field `file`); its URL works wherever an
    `audio_url` or `media_url` is taken. Files that no decoder can read are 422; a file
    that would pass the account's storage quota is 413 `storage_quota_exceeded`. Uploads
    expire (`expires_at`) after the storage retention, 30 days by default."""

    def store() -> MediaOut:
        with tempfile.TemporaryDirectory(dir=_tmp_root(settings)) as tmp:
            path = Path(tmp) / "upload"
            with path.open("wb") as out:
                while chunk := file.file.read(1 << 20):
                    out.write(chunk)
            with db.session() as session:
                media = service.save_upload(session, settings, principal, path, file.filename)
                return media_out(settings, media)

    return await run_in_threadpool(store)


def _tmp_root(settings: Settings) -> Path:
    root = settings.data_dir / "tmp"
    root.mkdir(parents=True, exist_ok=True)
    return root


@router.get("/media/{media_id}", response_model=MediaOut, responses=errors(404, 410))
def get_media(
    media_id: str, session: SessionDep, principal: PrincipalDep, settings: SettingsDep
) -> MediaOut:
    """A media object of the caller's, with a freshly signed URL; 410 `media_expired` once
    past its `expires_at`."""
    return media_out(settings, service.get_owned(session, principal, media_id))


@public_router.get(
    "/{media_id}/{filename}",
    response_class=FileResponse,
    responses={
        200: {
            "content": {"audio/*": {}, "video/*": {}},
            "description": "The media bytes (streamed from the media store, local or S3); "
            "Range requests are honoured.",
        },
        **errors(403, 404, 410),
    },
)
@raw_query
def download_media(
    media_id: str, filename: str, request: Request, db: DatabaseDep, settings: SettingsDep
) -> Response:
    """A signed media URL (no API key: the signature is the credential). Tampered or expired
    URLs are 403; media past their retention (`expires_at`) are 410 `media_expired`."""
    with db.read_session() as session:
        media = service.open_signed(session, settings, media_id, filename, request.url.query)
    return service.media_response(
        settings, media, request.headers.get("range"), request.headers.get("if-range")
    )
