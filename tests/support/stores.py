"""What the media store holds, whichever it is (the local directory or an S3 bucket): for
tests that check what a request stored, or did not store."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from soundstage.config import MediaSettings, Settings
from soundstage.storage.backend import S3MediaStore


def stored_objects(settings: Settings, prefix: str) -> dict[str, int]:
    """The objects under `prefix` (a key prefix such as "sandbox/acc_…/"): key to size."""
    if not settings.media.s3_endpoint:
        root = settings.data_dir / "media"
        folder = root / prefix
        if not folder.exists():
            return {}
        return {
            str(path.relative_to(root)): path.stat().st_size
            for path in sorted(folder.rglob("*"))
            if path.is_file()
        }
    client = S3MediaStore(settings.media).client
    found: dict[str, int] = {}
    for page in client.get_paginator("list_objects_v2").paginate(
        Bucket=settings.media.s3_bucket, Prefix=prefix
    ):
        for item in page.get("Contents", []):
            found[item["Key"]] = int(item["Size"])
    return found


def account_media(settings: Settings, account_id: str, environment: str = "sandbox") -> list[str]:
    """The file names of an account's stored media (its uploads, outputs, kept inputs)."""
    keys = stored_objects(settings, f"{environment}/{account_id}/")
    return [key.rsplit("/", 1)[1] for key in sorted(keys)]


def account_media_sizes(
    settings: Settings, account_id: str, environment: str = "sandbox"
) -> list[int]:
    keys = stored_objects(settings, f"{environment}/{account_id}/")
    return [keys[key] for key in sorted(keys)]


def s3_test_media() -> MediaSettings | None:
    """Media settings for the S3 store the tests were given (SOUNDSTAGE_TEST_S3_ENDPOINT,
    _ACCESS_KEY, _SECRET_KEY, _REGION) with a new bucket name; None when none was given."""
    endpoint = os.environ.get("SOUNDSTAGE_TEST_S3_ENDPOINT")
    if not endpoint:
        return None
    return MediaSettings(
        s3_endpoint=endpoint,
        s3_bucket=f"soundstage-test-{secrets.token_hex(6)}",
        s3_region=os.environ.get("SOUNDSTAGE_TEST_S3_REGION", "us-east-1"),
        s3_access_key=os.environ.get("SOUNDSTAGE_TEST_S3_ACCESS_KEY"),
        s3_secret_key=os.environ.get("SOUNDSTAGE_TEST_S3_SECRET_KEY"),
    )


@contextmanager
def s3_test_store(media: MediaSettings) -> Iterator[None]:
    """The bucket of `media` made for the duration, then emptied and removed."""
    client = S3MediaStore(media).client
    client.create_bucket(Bucket=media.s3_bucket)
    try:
        yield
    finally:
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=media.s3_bucket):
            keys = [{"Key": item["Key"]} for item in page.get("Contents", [])]
            if keys:
                client.delete_objects(Bucket=media.s3_bucket, Delete={"Objects": keys})
        client.delete_bucket(Bucket=media.s3_bucket)
