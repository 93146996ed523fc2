"""The catalog's English voices, as the tests that go through each of them name them."""

from __future__ import annotations

from typing import Final

# (engine, voice, language), the voice the catalog recommends (Piper's Joe) first.
ENGLISH_VOICES: Final = [
    ("piper", "en_US-joe-medium", "en-US"),
    ("festival", "cmu_us_slt_arctic_hts", "en-US"),
    ("festival", "kal_diphone", "en-US"),
    ("flite", "awb", "en-GB"),
    ("flite", "rms", "en-US"),
    ("flite", "slt", "en-US"),
]
# (engine, voice) of the same, in the same order.
ENGLISH_ENGINE_VOICES: Final = [(engine, voice) for engine, voice, _ in ENGLISH_VOICES]
