"""Declarative base with stable constraint names for Alembic."""

from __future__ import annotations

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
