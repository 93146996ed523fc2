"""How each catalog voice sounds, as bench/voice_quality.py measured it: predicted naturalness
(DistillMOS and DNSMOS, mean opinion scores from 1 to 5), whisper-base's word error rate on
its reading and its real-time factor through the API. The bench writes quality.json beside
this module; the service reads it once per process."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final

QUALITY_FILE: Final = Path(__file__).with_name("quality.json")


@dataclass(frozen=True)
class VoiceQuality:
    """One voice's figures."""

    mos: float  # DistillMOS
    dnsmos_ovrl: float
    dnsmos_p808: float
    wer: float  # character error rate for a language written without spaces
    rtf: float
    measured_on: str  # ISO date


@functools.cache
def measured() -> dict[str, VoiceQuality]:
    """Every measured voice's figures, by voice id (empty when nothing was measured)."""
    if not QUALITY_FILE.exists():
        return {}
    stored = json.loads(QUALITY_FILE.read_text())
    return {
        voice_id: VoiceQuality(
            mos=figures["mos"],
            dnsmos_ovrl=figures["dnsmos_ovrl"],
            dnsmos_p808=figures["dnsmos_p808"],
            wer=figures["wer"],
            rtf=figures["rtf"],
            measured_on=stored["measured_on"],
        )
        for voice_id, figures in stored["voices"].items()
    }


def quality_of(voice_id: str) -> VoiceQuality | None:
    return measured().get(voice_id)
