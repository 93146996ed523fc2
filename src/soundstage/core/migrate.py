"""Apply Alembic migrations, one process at a time (several servers may start together)."""

from __future__ import annotations

import fcntl
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import inspect, text

from soundstage.config import Settings
from soundstage.core.db import make_engine

MIGRATIONS_DIR = Path(__file__).resolve().parents[3] / "migrations"
_PG_LOCK_ID = 7_301_955  # any constant: serializes concurrent upgrades on PostgreSQL


def upgrade_database(settings: Settings) -> bool:
    """Bring the database to the latest schema; True when it had none (a new database, made
    now: the SQLite file did not exist, or the PostgreSQL database was empty)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    engine = make_engine(settings)
    try:
        if settings.is_sqlite:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
            with open(settings.data_dir / ".migrate.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                return _run(config, engine)
        else:
            with engine.connect() as conn:
                conn.execute(text("SELECT pg_advisory_lock(:id)"), {"id": _PG_LOCK_ID})
                conn.commit()
                try:
                    return _run(config, engine)
                finally:
                    conn.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": _PG_LOCK_ID})
                    conn.commit()
    finally:
        engine.dispose()


def _run(config: Config, engine: object) -> bool:
    with engine.begin() as connection:  # type: ignore[attr-defined]
        new = not inspect(connection).has_table("alembic_version")
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
        return new
