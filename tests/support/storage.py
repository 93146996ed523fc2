"""Stored media and their signed URLs."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.models import MediaObject
from soundstage.models.media import MediaPurpose
from soundstage.storage import service as storage
from tests.support.audio import wav_bytes
from tests.support.factories import Customer, principal_of


def stored_media(
    db: Database, settings: Settings, customer: Customer, tmp_path: Path
) -> MediaObject:
    """A one-second WAV saved for the customer as an output."""
    path = tmp_path / "clip.wav"
    path.write_bytes(wav_bytes())
    with db.session() as session:
        return storage.save(
            session,
            settings,
            principal_of(customer),
            path,
            filename="clip.wav",
            content_type="audio/wav",
            duration_ms=1000,
            purpose=MediaPurpose.OUTPUT,
        )


def path_of(url: str) -> str:
    """The path and query of a URL: what the test client requests."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"
