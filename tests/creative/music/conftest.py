"""Fixtures of the music tests: a funded customer (the calls that generate and fetch music are
in `tests/support/music.py`)."""

from __future__ import annotations

import pytest

from soundstage.core.db import Database
from tests.support.factories import Customer, create_customer


@pytest.fixture
def rich(db: Database) -> Customer:
    return create_customer(db, credits_each=20_000)
