"""Single-use tokens that open a realtime session (browsers cannot set headers on a
WebSocket, and an API key never goes in a URL)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, CustomerOwned, Timestamped


class RealtimeToken(CustomerOwned, Timestamped, Base):
    __tablename__ = "realtime_token"

    # SHA-256 of the token (the token itself is shown once, to its minter).
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    api_key_id: Mapped[str] = mapped_column(String(40))
    # The endpoint it opens: "tts" or "stt".
    purpose: Mapped[str] = mapped_column(String(16))
    expires_at: Mapped[datetime] = mapped_column(index=True)
    used_at: Mapped[datetime | None] = mapped_column(default=None)
