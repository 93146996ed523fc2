"""The voice catalog: the voices text-to-speech speaks with, each performed by a creator.

The catalog is platform data, like ElevenLabs' shared voice library: one public library that
every account reads, identically in sandbox and production (sandbox must behave like
production, and a voice id found in one works in the other). So a voice carries no
`account_id` or `environment`; nothing in it belongs to a customer.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, Timestamped


class Voice(Timestamped, Base):
    __tablename__ = "voice"
    # One catalog voice per engine voice: what the caller hears is the engine voice, and the
    # demo loader finds the id it gave an engine voice before by this pair (ids never move).
    __table_args__ = (UniqueConstraint("engine", "engine_voice"),)

    # Readable and stable (`voice_joe`, `voice_es_lucia`): callers store it in their code.
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    creator_id: Mapped[str] = mapped_column(ForeignKey("creator.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    description: Mapped[str] = mapped_column(Text, default="")
    # BCP-47 as the engine speaks it (en-US, es-ES, cmn); filters compare case-insensitively.
    language: Mapped[str] = mapped_column(String(35))
    gender: Mapped[str] = mapped_column(String(16))  # female | male
    # How the voice sounds to a listener: "American", "Scottish", "Castilian", …
    accent: Mapped[str] = mapped_column(String(100))
    # The registry's engine name and that engine's own voice id, given back to synthesize().
    engine: Mapped[str] = mapped_column(String(40))
    engine_voice: Mapped[str] = mapped_column(String(200))
    # Engine-specific defaults for synthesis; {} when the engine's own are right.
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # A retired voice stays (jobs name it) but is neither listed nor usable.
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
