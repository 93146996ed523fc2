"""Where media bytes live, behind a small interface: a local directory (the embedded default)
or an S3-compatible object store (AWS S3, Ceph RGW, ...) that every node shares.

Nothing here holds a whole object in memory: objects go in from a file (S3: multipart above
`media.s3_multipart_threshold_bytes`), come out as a stream of chunks (a byte range of them,
for HTTP Range requests) or into a file (a worker's scratch copy of an input)."""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from soundstage.config import MediaSettings, Settings

if TYPE_CHECKING:
    from boto3.s3.transfer import TransferConfig

# Bytes per chunk when an object is streamed (a response, a copy).
CHUNK_BYTES = 256 * 1024


class MediaObjectMissing(LookupError):
    """The store holds no object under the key (never stored, or deleted by the sweeper)."""


class MediaStore(Protocol):
    def put(self, key: str, source: Path) -> int:
        """Store `source` under `key` (the source may be moved); return its size."""
        ...

    def size(self, key: str) -> int | None:
        """The object's size in bytes; None when there is none."""
        ...

    def open_range(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The object's bytes `start` to `end` (inclusive; None: to the end), in chunks.
        MediaObjectMissing (raised before the first chunk) when there is none."""
        ...

    def download_to(self, key: str, dest: Path) -> Path:
        """The object's bytes written to the file `dest`, as they come; MediaObjectMissing
        when there is none."""
        ...

    def local_file(self, key: str) -> Path | None:
        """The object's own local file when the store is a local directory (read in place,
        not copied); None for a remote store, or when there is no such object."""
        ...

    def delete(self, key: str) -> None:
        """Remove the object; nothing when there is none."""
        ...

    def check_ready(self, timeout_seconds: float) -> None:
        """Raise unless the store can take objects now (/readyz), answering within
        `timeout_seconds`."""
        ...


class LocalMediaStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        path = (self.root / key).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise ValueError(f"storage key escapes the store: {key!r}")
        return path

    def put(self, key: str, source: Path) -> int:
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        draft = target.with_name(f".{target.name}.{os.getpid()}.part")
        shutil.copyfile(source, draft)
        os.replace(draft, target)  # readers never see a half-written file
        return target.stat().st_size

    def size(self, key: str) -> int | None:
        try:
            return self._path(key).stat().st_size
        except FileNotFoundError:
            return None

    def open_range(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        try:
            handle = self._path(key).open("rb")
        except FileNotFoundError as exc:
            raise MediaObjectMissing(key) from exc
        return _read_range(handle, start, end)

    def download_to(self, key: str, dest: Path) -> Path:
        try:
            shutil.copyfile(self._path(key), dest)
        except FileNotFoundError as exc:
            raise MediaObjectMissing(key) from exc
        return dest

    def local_file(self, key: str) -> Path | None:
        path = self._path(key)
        return path if path.is_file() else None

    def delete(self, key: str) -> None:
        path = self._path(key)
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # the object's own folder, once empty
            path.parent.rmdir()

    def check_ready(self, timeout_seconds: float) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise PermissionError(f"the media directory {self.root} is not writable")


def _read_range(handle: Any, start: int, end: int | None) -> Iterator[bytes]:
    with handle:
        handle.seek(start)
        left = None if end is None else end - start + 1
        while left is None or left > 0:
            chunk = handle.read(CHUNK_BYTES if left is None else min(CHUNK_BYTES, left))
            if not chunk:
                return
            if left is not None:
                left -= len(chunk)
            yield chunk


class S3MediaStore:
    """Media in one bucket of an S3-compatible store, with boto3: signature v4, path-style
    addressing by default (what Ceph RGW and MinIO expect without wildcard DNS). Uploads
    above the multipart threshold go in parts of `s3_multipart_chunk_bytes`; downloads to a
    file go by ranged GETs of the same size, written as they come."""

    def __init__(self, media: MediaSettings, probe_timeout_seconds: float = 2.0) -> None:
        from boto3.s3.transfer import TransferConfig
        from botocore.config import Config

        self.bucket = media.s3_bucket
        self._media = media
        self.client: Any = self._client(
            Config(retries={"max_attempts": 5, "mode": "standard"}, max_pool_connections=16)
        )
        # The readiness probe's client, made now: making a boto3 client takes a few hundred
        # milliseconds of CPU, which must not count against the probe's short timeout.
        self._probe_timeout = probe_timeout_seconds
        self._probe: Any = self._probe_client(probe_timeout_seconds)
        self.transfer: TransferConfig = TransferConfig(
            multipart_threshold=media.s3_multipart_threshold_bytes,
            multipart_chunksize=media.s3_multipart_chunk_bytes,
            max_concurrency=4,
            io_chunksize=CHUNK_BYTES,
            # Downloaded chunks waiting for the disk: at most 16 x 256 KiB in memory.
            max_io_queue=16,
        )

    def put(self, key: str, source: Path) -> int:
        size = source.stat().st_size
        # A PUT (or a completed multipart upload) replaces the object whole: readers see the
        # old bytes or the new, never a part.
        self.client.upload_file(str(source), self.bucket, key, Config=self.transfer)
        return size

    def size(self, key: str) -> int | None:
        from botocore.exceptions import ClientError

        try:
            head = self.client.head_object(Bucket=self.bucket, Key=key)
        except ClientError as exc:
            if _is_missing(exc):
                return None
            raise
        return int(head["ContentLength"])

    def open_range(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        from botocore.exceptions import ClientError

        extra = {}
        if start or end is not None:
            extra["Range"] = f"bytes={start}-{'' if end is None else end}"
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=key, **extra)
        except ClientError as exc:
            if _is_missing(exc):
                raise MediaObjectMissing(key) from exc
            raise
        return _stream_body(answer["Body"])

    def download_to(self, key: str, dest: Path) -> Path:
        from botocore.exceptions import ClientError

        try:
            self.client.download_file(self.bucket, key, str(dest), Config=self.transfer)
        except ClientError as exc:
            if _is_missing(exc):
                raise MediaObjectMissing(key) from exc
            raise
        return dest

    def local_file(self, key: str) -> Path | None:
        return None

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=key)  # no error when there is none

    def check_ready(self, timeout_seconds: float) -> None:
        probe = self._probe
        if timeout_seconds != self._probe_timeout:  # not the store's own bound: a new client
            probe = self._probe_client(timeout_seconds)
        probe.head_bucket(Bucket=self.bucket)

    def _probe_client(self, timeout_seconds: float) -> Any:
        """A client of its own for readiness: one try, short timeouts (the store's retries)."""
        from botocore.config import Config

        return self._client(
            Config(
                connect_timeout=timeout_seconds,
                read_timeout=timeout_seconds,
                retries={"max_attempts": 1, "mode": "standard"},
            )
        )

    def _client(self, config: Any) -> Any:
        import boto3
        from botocore.config import Config

        media = self._media
        return boto3.session.Session().client(
            "s3",
            endpoint_url=media.s3_endpoint,
            region_name=media.s3_region,
            aws_access_key_id=media.s3_access_key,
            aws_secret_access_key=media.s3_secret_key,
            config=Config(
                signature_version="s3v4",
                s3={"addressing_style": media.s3_addressing_style},
                # Checksums only where S3 requires them: Ceph RGW before Reef and other stores
                # refuse the trailing checksums boto3 adds by default; TLS and the signature
                # already cover the bytes in transit.
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
            ).merge(config),
        )


def _stream_body(body: Any) -> Iterator[bytes]:
    try:
        yield from body.iter_chunks(CHUNK_BYTES)
    finally:
        body.close()


def _is_missing(exc: Any) -> bool:
    error = exc.response.get("Error", {})
    status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return status == 404 or error.get("Code") in {"404", "NoSuchKey", "NotFound"}


# One S3 client per process and configuration (clients are thread-safe, and slow to make;
# a forked worker process makes its own, never sharing its parent's connections).
_S3_STORES: dict[tuple[int, str], S3MediaStore] = {}
_S3_LOCK = threading.Lock()


def make_store(settings: Settings) -> MediaStore:
    """The store of `settings`: S3 when `media.s3_endpoint` is set, else `data_dir/media`."""
    media = settings.media
    if not media.s3_endpoint:
        return LocalMediaStore(settings.data_dir / "media")
    timeout = settings.readiness_timeout_seconds
    key = (os.getpid(), f"{media.model_dump_json()} {timeout}")
    with _S3_LOCK:
        store = _S3_STORES.get(key)
        if store is None:
            store = _S3_STORES[key] = S3MediaStore(media, probe_timeout_seconds=timeout)
        return store
