"""The answer of ElevenLabs' character stats, as the official SDK (2.78) reads it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Interval = Literal["hour", "day", "week", "month", "cumulative"]
Breakdown = Literal["none", "product_type"]
Metric = Literal["credits", "tts_characters", "request_count"]
# The key of the one series without a breakdown, as ElevenLabs names it.
ALL = "All"


class ElevenLabsUsageCharacters(BaseModel):
    time: list[int] = Field(description="Each bucket's start, Unix milliseconds (UTC).")
    usage: dict[str, list[float]] = Field(
        description='One series per breakdown key, a value per bucket: `"All"` without a '
        "breakdown; the operation charged (`tts`, `stt`, `music`, …) by `product_type`."
    )
