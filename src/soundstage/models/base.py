"""Declarative base with stable constraint names for Alembic."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import MetaData, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from soundstage.core.timeutil import UTCDateTime, utcnow

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {datetime: UTCDateTime()}


class CustomerOwned:
    """Columns every customer row carries: who owns it, in which environment."""

    account_id: Mapped[str] = mapped_column(String(40), index=True)
    environment: Mapped[str] = mapped_column(String(16))


class Timestamped:
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


# Database objects that a migration creates for one dialect only (full-text indexes and their
# shadow tables), which no model can describe: table names, `table.column` and index names.
# Autogenerate skips them: migrations/env.py and tests/core/test_migrations.py pass
# `include_name`.
UNMANAGED_NAMES: set[str] = set()


def include_name(name: str | None, type_: str, parent_names: Mapping[str, str | None]) -> bool:
    """Alembic's `include_name` hook: False for the objects in UNMANAGED_NAMES."""
    if type_ == "column":
        return f"{parent_names.get('table_name')}.{name}" not in UNMANAGED_NAMES
    return name not in UNMANAGED_NAMES
