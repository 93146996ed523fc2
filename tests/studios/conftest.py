"""Studio fixtures: the demo catalog, and a factory of small studios made for one test (a
unique id and city each, so tests never see each other's bookings: `create_studio` in
`tests/support/factories.py`)."""

from __future__ import annotations

from typing import Any

import pytest

from soundstage.core.db import Database
from soundstage.studios.catalog import StudioSpec
from soundstage.studios.demo import load_demo_studios
from soundstage.studios.importer import StudioCounts
from tests.support.factories import MakeStudio, create_studio


@pytest.fixture(scope="session")
def demo_studios(db: Database) -> StudioCounts:
    """The demo studio catalog in the test database, loaded once through the service."""
    with db.session() as session:
        return load_demo_studios(session)


@pytest.fixture
def make_studio(db: Database) -> MakeStudio:
    def make(**options: Any) -> StudioSpec:
        return create_studio(db, **options)

    return make
