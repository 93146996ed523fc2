"""Voice talent: the creators behind the catalog's voices (issue 8 adds rates, demos, search).

Creators are platform data, not customer rows: they carry no `account_id` or `environment`,
so every account sees the same talent in sandbox and production.
"""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, Timestamped


class Creator(Timestamped, Base):
    __tablename__ = "creator"

    # `cr_…`: new_id("cr") for signed-up talent, readable ones (`cr_joe`) for the demo catalog.
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(200))
    bio: Mapped[str] = mapped_column(Text, default="")
    # female | male; None when the creator does not say.
    gender: Mapped[str | None] = mapped_column(String(16), default=None)
    # BCP-47 tags of the languages the creator performs in.
    languages: Mapped[list[str]] = mapped_column(JSON)
    verified: Mapped[bool] = mapped_column(Boolean, default=False)
