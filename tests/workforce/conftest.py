"""Workforce fixtures: the demo talent catalog loaded once through the services, and verified
buyers (talent written for one test is made by `tests.support.factories`)."""

from __future__ import annotations

import pytest

from soundstage.core.db import Database
from soundstage.voices.service import CatalogCounts
from soundstage.workforce.talent.catalog import TalentCounts
from soundstage.workforce.talent.demo import load_demo_talent
from tests.support.factories import Customer, create_buyer


@pytest.fixture(scope="session")
def talent_catalog(db: Database, demo_catalog: CatalogCounts) -> TalentCounts:
    """The demo talent catalog on top of the demo voices, loaded once per session."""
    with db.session() as session:
        return load_demo_talent(session)


@pytest.fixture
def buyer(db: Database, talent_catalog: TalentCounts) -> Customer:
    """A fresh account, a verified buyer in both environments."""
    return create_buyer(db)


@pytest.fixture
def other_buyer(db: Database, talent_catalog: TalentCounts) -> Customer:
    return create_buyer(db)
