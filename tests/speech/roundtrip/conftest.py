"""Fixtures of the normalization round trip: whisper-base in the test process, and a
listener: a fresh customer's TTS requests, heard."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.engines.transcribers.base import Transcriber
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.voices.service import CatalogCounts, voice_ids_by_engine_voice
from tests.support.factories import create_customer
from tests.support.listening import Listener


@pytest.fixture(scope="session")
def whisper(settings: Settings) -> Transcriber:
    return get_transcriber("whisper-base", settings=settings)


@pytest.fixture
def listener(
    client: TestClient,
    settings: Settings,
    db: Database,
    demo_catalog: CatalogCounts,
    whisper: Transcriber,
) -> Listener:
    with db.session() as session:
        voice_ids = voice_ids_by_engine_voice(session)
    customer = create_customer(db, credits_each=20_000)
    return Listener(client, settings, customer, voice_ids, whisper)
