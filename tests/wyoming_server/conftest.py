"""Fixtures of the Wyoming server's tests: a funded account and a real `soundstage wyoming`
serving it (its jobs run by the shared `worker`), the demo voice catalog loaded."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.engines.transcribers.base import Transcriber
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.voices.service import CatalogCounts
from tests.support.factories import Customer, create_customer
from tests.support.wyoming import wyoming_server


@pytest.fixture(scope="module")
def account(db: Database, demo_catalog: CatalogCounts) -> Customer:
    """The account the module's server runs as, with credits to spare."""
    return create_customer(db, credits_each=100_000)


@pytest.fixture(scope="module")
def port(settings: Settings, worker: subprocess.Popen[bytes], account: Customer) -> Iterator[int]:
    """The port of a live `soundstage wyoming` as the account's sandbox key."""
    with wyoming_server(settings, account.sandbox_key) as listening:
        yield listening


@pytest.fixture(scope="module")
def transcriber(settings: Settings) -> Transcriber:
    """whisper-base in this process (loaded once), to hear synthesized speech back."""
    return get_transcriber("whisper-base", settings=settings)
