"""Engine and sessions: SQLite (WAL, immediate transactions) by default, or PostgreSQL.

Every process keeps `database.pool_size` connections and no more; a unit of work waits at
most `database.wait_seconds` for one (or for SQLite's write lock, or a PostgreSQL row lock),
then fails with an error `is_overloaded` recognizes (the API answers 503 `overloaded`)."""

from __future__ import annotations

import logging
import os
import sqlite3
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import QueuePool

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


# SQLite's result codes for "another connection holds the lock" (sqlite3 names them in 3.11).
_SQLITE_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED
# PostgreSQL's SQLSTATE for a lock not granted within lock_timeout.
_PG_LOCK_NOT_AVAILABLE = "55P03"


def is_overloaded(exc: BaseException) -> bool:
    """Whether `exc` (or what it was raised from) is the database's way of saying it could not
    serve the unit of work in time: no pooled connection free within `wait_seconds`, or a lock
    still held by others when the wait ran out. A dependency that is busy, never a bug."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, sa_exc.TimeoutError):
            return True
        if isinstance(current, sqlite3.OperationalError):
            code = getattr(current, "sqlite_errorcode", None)
            if code is not None and code & 0xFF in _SQLITE_BUSY_CODES:
                return True
        if getattr(current, "sqlstate", None) == _PG_LOCK_NOT_AVAILABLE:
            return True
        current = current.__cause__ or current.__context__
    return False


def make_engine(settings: Settings) -> Engine:
    url = settings.resolved_database_url
    sizing = settings.database
    pool: dict[str, Any] = {
        "pool_size": sizing.pool_size,
        "max_overflow": 0,
        "pool_timeout": sizing.wait_seconds,
    }
    if not url.startswith("sqlite"):
        lock_timeout_ms = int(sizing.wait_seconds * 1000)
        return create_engine(
            url,
            pool_pre_ping=True,
            connect_args={"options": f"-c lock_timeout={lock_timeout_ms}"},
            **pool,
        )
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        connect_args={"timeout": sizing.wait_seconds, "check_same_thread": False},
        poolclass=QueuePool,
        **pool,
    )
    busy_timeout_ms = int(sizing.wait_seconds * 1000)

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
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # Read-only units (READ_ONLY option) take no write lock: WAL readers never block.
        read_only = conn.get_execution_options().get(READ_ONLY, False)
        conn.connection.driver_connection.execute("BEGIN" if read_only else "BEGIN IMMEDIATE")

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
            except BaseException:
                abandon(session)
                raise
            finish(session)

    @contextmanager
    def read_session(self) -> Iterator[Session]:
        """A unit of work that only reads (e.g. the API-key lookup): no write lock on SQLite."""
        with self.read_sessionmaker() as session:
            yield session

    def new_session(self, *, read_only: bool) -> Session:
        """A session not yet connected (the first statement takes a pooled connection), for a
        unit of work that the caller ends with `finish` or `abandon` on the thread that used
        it; closing it after that does no I/O."""
        return (self.read_sessionmaker if read_only else self.sessionmaker)()

    def dispose(self) -> None:
        self.engine.dispose()


def finish(session: Session) -> None:
    """Commit `session`'s unit of work (its connection goes back to the pool), then run its
    `after_commit` callbacks."""
    try:
        session.commit()
    except BaseException:
        abandon(session)
        raise
    session.info.pop(_AFTER_ROLLBACK, None)
    for callback in session.info.pop(_AFTER_COMMIT, []):
        callback()


def abandon(session: Session) -> None:
    """Roll `session`'s unit of work back (its connection goes back to the pool) and run its
    `after_rollback` undos; its `after_commit` callbacks are dropped."""
    session.rollback()
    session.info.pop(_AFTER_COMMIT, None)
    for undo in session.info.pop(_AFTER_ROLLBACK, []):
        try:
            undo()
        except Exception:  # the unit's own error is the one to raise
            log.exception("cleanup after a rollback failed")
