"""Alembic environment: the URL comes from Settings (or the caller's connection)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection

from soundstage.config import get_settings
from soundstage.models import Base
from soundstage.models.base import include_name

config = context.config


def run_on(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        include_name=include_name,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:  # soundstage migrate / serve hand over their connection
        run_on(connection)
        return
    url = config.get_main_option("sqlalchemy.url") or get_settings().resolved_database_url
    engine = create_engine(url)
    with engine.connect() as conn:
        run_on(conn)
    engine.dispose()


run_migrations()
