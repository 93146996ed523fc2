"""Migrations build exactly the schema the models describe (no create_all anywhere)."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from soundstage.core.db import Database
from soundstage.models import Base
from soundstage.models.base import include_name

pytestmark = pytest.mark.services


def test_migrated_schema_matches_the_models(db: Database) -> None:
    with db.engine.connect() as conn:
        diff = compare_metadata(
            MigrationContext.configure(conn, opts={"include_name": include_name}), Base.metadata
        )
        tables = set(inspect(conn).get_table_names())
    assert diff == []
    assert {"account", "api_key", "credit_balance", "credit_entry", "idempotency_record"} <= tables
    assert "alembic_version" in tables
