"""Pronunciation dictionaries: a dictionary and its immutable versions, each holding its rules."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, CustomerOwned, Timestamped


class PronunciationDictionary(CustomerOwned, Timestamped, Base):
    __tablename__ = "pronunciation_dictionary"
    __table_args__ = (
        Index(
            "ix_pronunciation_dictionary_owner_created", "account_id", "environment", "created_at"
        ),
        # The cap on dictionaries per account and environment: a dictionary holds one of its
        # owner's numbered slots, so two concurrent creations cannot both take the last one.
        Index(
            "uq_pronunciation_dictionary_owner_slot",
            "account_id",
            "environment",
            "slot",
            unique=True,
        ),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    description: Mapped[str | None] = mapped_column(String(500), default=None)
    # BCP-47 tag (a PLS file's xml:lang), if known.
    language: Mapped[str | None] = mapped_column(String(35), default=None)
    # The newest version and how many there are; both change together, in one conditional
    # UPDATE on `version_count` (pronunciation.repository.advance).
    latest_version_id: Mapped[str] = mapped_column(String(40))
    version_count: Mapped[int] = mapped_column(Integer)
    # 0 .. MAX_DICTIONARIES - 1 (pronunciation.service).
    slot: Mapped[int] = mapped_column(Integer)


class PronunciationDictionaryVersion(CustomerOwned, Timestamped, Base):
    """One version of a dictionary: its rules never change once written."""

    __tablename__ = "pronunciation_dictionary_version"
    __table_args__ = (
        Index(
            "uq_pronunciation_dictionary_version_number",
            "dictionary_id",
            "version_number",
            unique=True,
        ),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    dictionary_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("pronunciation_dictionary.id", ondelete="CASCADE")
    )
    version_number: Mapped[int] = mapped_column(Integer)
    # In order: [{"string_to_replace", "type": "alias"|"phoneme", "alias" | "phoneme" (IPA),
    # "case_sensitive"}] (pronunciation.rules.StoredRule).
    rules: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
