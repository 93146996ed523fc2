"""Voice agents: a named persona that speaks with a catalog voice (greeting, instructions)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, CustomerOwned, Timestamped


class Agent(CustomerOwned, Timestamped, Base):
    __tablename__ = "agent"
    __table_args__ = (Index("ix_agent_owner_created", "account_id", "environment", "created_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    voice_id: Mapped[str] = mapped_column(ForeignKey("voice.id"))
    # BCP-47; the voice's own language unless the caller names a variant of it.
    language: Mapped[str] = mapped_column(String(35))
    greeting: Mapped[str] = mapped_column(Text, default="")
    instructions: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[datetime]
