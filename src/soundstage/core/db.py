"""Engine and sessions: SQLite (WAL, immediate transactions) by default, or PostgreSQL."""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from soundstage.config import Settings

READ_ONLY = "soundstage_read_only"
_AFTER_COMMIT = "after_commit"
_AFTER_ROLLBACK = "after_rollback"
log = logging.getLogger(__name__)


def after_commit(session: Session, callback: Callable[[], None]) -> None:
    """Run `callback` once the unit of work that owns `session` has committed: work is
    enqueued only when the rows it reads are visible to the worker."""
    session.info.setdefault(_AFTER_COMMIT, []).append(callback)


def after_rollback(session: Session, callback: Callable[[], None]) -> None:
    """Run `callback` if the unit of work that owns `session` fails: undo what it did
    outside the database (e.g. remove a file it stored), which a rollback cannot."""
    session.info.setdefault(_AFTER_ROLLBACK, []).append(callback)


def make_engine(settings: Settings) -> Engine:
    url = settings.resolved_database_url
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 60, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy own transactions, so that every one starts IMMEDIATE:
        # a deferred transaction that reads then writes fails at once under
        # concurrency instead of waiting for the lock.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: no fsync per commit, still consistent after a crash (SQLite's advice).
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=60000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # Read-only units (READ_ONLY option) take no write lock: WAL readers never block.
        read_only = conn.get_execution_options().get(READ_ONLY, False)
        conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

    return engine


def _forget_pool(engine_ref: weakref.ref[Engine]) -> None:
    engine = engine_ref()
    if engine is not None:
        engine.dispose(close=False)


class Database:
    """One engine and its session factory, shared by the app, the CLI and workers."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = make_engine(settings)
        self.sessionmaker = sessionmaker(self.engine, expire_on_commit=False)
        # A forked worker must not touch its parent's pooled connections (SQLAlchemy's advice).
        engine_ref = weakref.ref(self.engine)
        os.register_at_fork(after_in_child=lambda: _forget_pool(engine_ref))
        self.read_sessionmaker = sessionmaker(
            self.engine.execution_options(**{READ_ONLY: True}), expire_on_commit=False
        )

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A unit of work: commits when the block ends, rolls back on error; then runs the
        callbacks registered with `after_commit` (e.g. enqueueing jobs) if it committed, or
        those registered with `after_rollback` if it did not."""
        with self.sessionmaker() as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                session.info.pop(_AFTER_COMMIT, None)
                for undo in session.info.pop(_AFTER_ROLLBACK, []):
                    try:
                        undo()
                    except Exception:  # the unit's own error is the one to raise
                        log.exception("cleanup after a rollback failed")
                raise
            session.info.pop(_AFTER_ROLLBACK, None)
            for callback in session.info.pop(_AFTER_COMMIT, []):
                callback()

    @contextmanager
    def read_session(self) -> Iterator[Session]:
        """A unit of work that only reads (e.g. the API-key lookup): no write lock on SQLite."""
        with self.read_sessionmaker() as session:
            yield session

    def dispose(self) -> None:
        self.engine.dispose()
