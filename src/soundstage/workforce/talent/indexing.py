"""The search rows and filter tags of creators follow their profiles, however a creator is
written through the ORM (the voice catalog, a talent import, an operator): a listener on every
session, registered when the talent package is imported (`workforce/talent/__init__.py`).

It lives here, with the index's one writer (the talent repository), not beside the `Creator`
table: models import nothing above them. Every process that writes creators imports the
talent package: the app (its endpoints), the CLI (`serve`, `worker`, `catalog ...`) and so the
workers it forks."""

from __future__ import annotations

from sqlalchemy import event
from sqlalchemy.orm import Session, UOWTransaction

from soundstage.models import Creator
from soundstage.workforce.talent import repository


@event.listens_for(Session, "after_flush")
def index_changed_creators(session: Session, _flush: UOWTransaction) -> None:
    """After the flush that writes a creator, in the same transaction. Bulk imports index
    their rows themselves (repository.insert_index)."""
    changed = [
        obj
        for obj in (*session.new, *session.dirty)
        if isinstance(obj, Creator) and (obj in session.new or session.is_modified(obj))
    ]
    if changed:
        repository.reindex(session.connection(), changed)
