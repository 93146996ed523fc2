"""All SQL of pronunciation dictionaries. A new version moves the dictionary on with one
conditional UPDATE (`advance`), so two concurrent edits cannot both become version n + 1."""

from __future__ import annotations

from sqlalchemy import Select, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from soundstage.core.tenancy import Owner, owned, select_owned
from soundstage.models import PronunciationDictionary, PronunciationDictionaryVersion


def dictionaries_query(owner: Owner) -> Select[PronunciationDictionary]:
    return select_owned(PronunciationDictionary, owner)


def get_dictionary(
    session: Session, owner: Owner, dictionary_id: str
) -> PronunciationDictionary | None:
    query = dictionaries_query(owner).where(PronunciationDictionary.id == dictionary_id)
    return session.scalars(query.execution_options(populate_existing=True)).first()


def used_slots(session: Session, owner: Owner) -> set[int]:
    """The slots the owner's dictionaries hold (see `pronunciation.service.create`)."""
    stmt = select(PronunciationDictionary.slot).where(owned(PronunciationDictionary, owner))
    return set(session.scalars(stmt))


def add_in_free_slot(
    session: Session,
    dictionary: PronunciationDictionary,
    version: PronunciationDictionaryVersion,
) -> bool:
    """Insert a new dictionary and its first version unless its owner's slot was taken
    meanwhile (the unique key refuses it; only the savepoint is undone)."""
    try:
        with session.begin_nested():
            session.add(dictionary)
            session.flush()
            session.add(version)
    except IntegrityError:
        return False
    return True


def versions_query(owner: Owner, dictionary_id: str) -> Select[PronunciationDictionaryVersion]:
    return select_owned(PronunciationDictionaryVersion, owner).where(
        PronunciationDictionaryVersion.dictionary_id == dictionary_id
    )


def get_version(
    session: Session, owner: Owner, dictionary_id: str, version_id: str
) -> PronunciationDictionaryVersion | None:
    query = versions_query(owner, dictionary_id).where(
        PronunciationDictionaryVersion.id == version_id
    )
    return session.scalars(query).first()


def advance(
    session: Session, owner: Owner, dictionary_id: str, seen_count: int, version_id: str
) -> bool:
    """Make `version_id` the latest, version number `seen_count + 1`, unless another version
    was made since the caller read `seen_count`. True when this call moved it."""
    stmt = (
        update(PronunciationDictionary)
        .where(
            owned(PronunciationDictionary, owner),
            PronunciationDictionary.id == dictionary_id,
            PronunciationDictionary.version_count == seen_count,
        )
        .values(version_count=seen_count + 1, latest_version_id=version_id)
        .execution_options(synchronize_session=False)
    )
    return int(session.execute(stmt).rowcount) == 1  # type: ignore[attr-defined]


def add_version(session: Session, version: PronunciationDictionaryVersion) -> None:
    session.add(version)
    session.flush()


def delete_dictionary(session: Session, owner: Owner, dictionary_id: str) -> bool:
    """Delete the dictionary and every version of it. True when there was one."""
    session.execute(
        delete(PronunciationDictionaryVersion)
        .where(
            owned(PronunciationDictionaryVersion, owner),
            PronunciationDictionaryVersion.dictionary_id == dictionary_id,
        )
        .execution_options(synchronize_session=False)
    )
    result = session.execute(
        delete(PronunciationDictionary)
        .where(owned(PronunciationDictionary, owner), PronunciationDictionary.id == dictionary_id)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount) == 1  # type: ignore[attr-defined]
