"""What both compatible surfaces need from the native services: a multipart upload kept as
media (its URL is then the job's `audio_url`, as on the native API), and a job's output
read back to be answered as bytes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.responses import Response

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError, InvalidField
from soundstage.core.principal import Principal
from soundstage.storage import service as storage

_COPY_BYTES = 1 << 20


async def kept_upload(
    db: Database, settings: Settings, principal: Principal, file: UploadFile, *, param: str
) -> str:
    """Keep an uploaded file as the caller's media (as POST /api/v1/uploads does: the storage
    quota and retention apply; 422 naming `param` if no decoder reads it) and answer its
    signed URL, which the native jobs take as their input."""

    def keep() -> str:
        root = settings.data_dir / "tmp"
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=root) as tmp:
            path = Path(tmp) / "upload"
            with path.open("wb") as out:
                while chunk := file.file.read(_COPY_BYTES):
                    out.write(chunk)
            if path.stat().st_size == 0:
                raise InvalidField(f"{param}: The file is empty.", param=param)
            with db.session() as session:
                try:
                    media = storage.save_upload(session, settings, principal, path, file.filename)
                except AppError as exc:
                    if exc.status == 422:  # unreadable media: the form field names it
                        exc.param = param
                    raise
                url, _expires = storage.url_of(settings, media)
                return url

    return await run_in_threadpool(keep)


async def output_response(
    db: Database, settings: Settings, principal: Principal, url: str, content_type: str
) -> Response:
    """A job's output (the caller's own media behind its URL) answered as bytes, from
    whichever store holds them."""

    def find() -> Response:
        with db.read_session() as session:
            media = storage.callers_input(session, settings, principal, url, param="output")
        if media is None:  # a job's own output is always the caller's
            raise RuntimeError(f"not an output of the caller's: {url}")
        return storage.media_response(settings, media, None, None, content_type=content_type)

    return await run_in_threadpool(find)
