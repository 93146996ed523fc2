"""Stored objects as HTTP responses, Range requests honoured.

Media are always served through this service's own URLs (signed and expiring for media and
demos, public for voice previews), never by redirecting to the store: the expiry (24 h for TTS
and isolation outputs, `media.url_ttl_seconds`) and the media's retention are enforced here
the same whichever store holds the bytes, the store's credentials and address stay private,
and a URL issued by one node works on every node. From the local directory an object is sent
as a file (Starlette's FileResponse); from S3 it is streamed through in chunks, a Range
request becoming a ranged GetObject, so no node holds a whole object in memory."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

from fastapi.responses import FileResponse, Response, StreamingResponse

from soundstage.storage.backend import MediaObjectMissing, MediaStore

_UNITS: Final = "bytes="


def object_response(
    store: MediaStore,
    key: str,
    *,
    content_type: str,
    filename: str,
    range_header: str | None,
    if_range: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The object under `key` as a response (200, 206 for a satisfiable single range, 416
    with the object's size for an unsatisfiable one). MediaObjectMissing when there is none.
    Blocking (an S3 HEAD and GET): call it from a thread."""
    local = store.local_file(key)
    if local is not None:
        return FileResponse(
            local,
            media_type=content_type,
            filename=filename,
            content_disposition_type="inline",
            headers=dict(headers or {}),
        )
    size = store.size(key)
    if size is None:
        raise MediaObjectMissing(key)
    common = {
        **(headers or {}),
        "accept-ranges": "bytes",
        "content-disposition": f'inline; filename="{filename}"',
    }
    # A conditional range (If-Range) is answered whole: no validator is kept to compare.
    wanted = parse_range(range_header, size) if range_header and if_range is None else None
    if wanted == "unsatisfiable":
        return Response(status_code=416, headers={**common, "content-range": f"bytes */{size}"})
    if not isinstance(wanted, tuple):
        return StreamingResponse(
            store.open_range(key),
            media_type=content_type,
            headers={**common, "content-length": str(size)},
        )
    start, end = wanted
    return StreamingResponse(
        store.open_range(key, start, end),
        status_code=206,
        media_type=content_type,
        headers={
            **common,
            "content-length": str(end - start + 1),
            "content-range": f"bytes {start}-{end}/{size}",
        },
    )


def parse_range(header: str, size: int) -> tuple[int, int] | Literal["unsatisfiable"] | None:
    """The inclusive byte range one `Range: bytes=…` asks of an object of `size` bytes:
    (start, end), "unsatisfiable", or None to answer the whole object (no usable range: a
    malformed header or several ranges, which a server may ignore, RFC 9110 14.2)."""
    if not header.startswith(_UNITS) or "," in header:
        return None
    first, dash, last = header[len(_UNITS) :].strip().partition("-")
    if not dash or not (first or last) or not all(_digits(p) for p in (first, last) if p):
        return None
    if not first:  # the last N bytes
        length = int(last)
        if length == 0 or size == 0:
            return "unsatisfiable"
        return max(size - length, 0), size - 1
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    if last and int(last) < start:
        return None
    if start >= size:
        return "unsatisfiable"
    return start, end


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()  # '²'.isdigit() is true, int('²') raises
