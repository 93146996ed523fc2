"""SVOX Pico (PyPI `ttspico`: the Pico engine of the Android Open Source Project, Apache 2.0,
built from source with its lingware), in process: a female voice each for Castilian Spanish,
French, German and Italian, 16 kHz.

Pico also ships two English voices (en-US, en-GB); they are not listed: whisper-base
misheard 2.9% and 5.2% of the normalization round trip's English words (bound 3%), where
the catalog's six English voices are clearer (docs/calibration.md, "SVOX Pico").

Pico reads markup of its own in the text (`<speed>`, `<phoneme>`, and `<play>` and
`<genfile>`, which read and write files): every `<` and `>` is taken out of the text before it
gets there, so that only this module's markup reaches the engine.

Phonemes (base.Phonemes) are honoured by all four voices: each is Pico's own
`<phoneme alphabet="xsampa" ph="..."/>`, its IPA in X-SAMPA symbols of the language's phones
(phonemes.ipa_to_xsampa_phones with _PHONES). Pico skips a symbol its language lacks, so a
sound missing becomes the nearest one present instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt
import ttspico  # type: ignore[import-untyped]

from soundstage.engines.errors import EngineUnavailable, SynthesisFailed
from soundstage.engines.tts.base import (
    BaseSynthesizer,
    EngineVoice,
    Part,
    Phonemes,
    check_text,
    spoken,
)
from soundstage.engines.tts.phonemes import ipa_to_xsampa_phones
from soundstage.media.audio import Audio

ENGINE: Final = "pico"
SAMPLE_RATE: Final = 16_000

# The engine voice is Pico's language; the lingware's speaker is in its file name
# (`es-ES_zl0_sg.bin`).
_CATALOG: Final = (
    EngineVoice(
        engine=ENGINE,
        voice="es-ES",
        language="es-ES",
        gender="female",
        accent="Castilian",
        label="Carmen",
    ),
    EngineVoice(
        engine=ENGINE,
        voice="fr-FR",
        language="fr-FR",
        gender="female",
        accent="Metropolitan French",
        label="Claire",
    ),
    EngineVoice(
        engine=ENGINE,
        voice="de-DE",
        language="de-DE",
        gender="female",
        accent="Standard German",
        label="Katrin",
    ),
    EngineVoice(
        engine=ENGINE,
        voice="it-IT",
        language="it-IT",
        gender="female",
        accent="Standard Italian",
        label="Giulia",
    ),
)


def _symbols(listing: str) -> frozenset[str]:
    return frozenset(listing.split())


# Each language's phones, in X-SAMPA: the symbols that change what Pico says for
# `<phoneme ph="a X a"/>` (it skips the others), found by trying every X-SAMPA segment and
# nasal vowel; tests/engines/tts/test_phonemes.py checks them against the lingware. Stress
# ("'", "%"), length (":") and syllable breaks (".") are read in every language.
_PHONES: Final = {
    "es-ES": _symbols("a b d e f i j k l m n o p r s t u x g B D G J L N T 4"),
    "fr-FR": _symbols(
        "a b d e f i j k l m n o p s t u v w y z g E H J N O R S Z 2 9 @ A~ O~ E~ 9~"
    ),
    "de-DE": _symbols("a b d e f h i j k l m n o p s t u v x y z g C E I N O R S U Y Z ? 2 6 9 @"),
    "it-IT": _symbols("a b d e f i k l m n o p r s t u v z g E J L N S 4"),
}
# Pico counts the text it is given in a 16-bit integer: longer text is said in pieces of at
# most this many UTF-8 bytes, cut between words.
MAX_TEXT_BYTES: Final = 4000
# Pico ends its speech with 0.5-1.1 s of silence (longer the faster it speaks): cut to this
# much after the last sound above 1% of the peak, as the other engines leave; the callers add
# their own pauses between sentences.
_TAIL_S: Final = 0.1
_QUIET: Final = 0.01
# Pico's own markup, and what would end a text early in C.
_MARKUP: Final = re.compile(r"[<>\x00]")
# A word of the text, or a whole phoneme tag of this module's.
_WORD_OR_TAG: Final = re.compile(r"<phoneme [^>]*/>|[^\s<>]+")


class PicoEngine(BaseSynthesizer):
    """A Pico system of its own for every call (about 1 ms to make: 3 MB of working memory,
    the language's 1-1.5 MB of lingware read from the page cache), so that calls share no
    state: Pico's unvoiced sounds draw from a random sequence that runs on from one call to
    the next in a kept system, and it releases the GIL while it speaks. The same text thus
    gives the same samples every time."""

    name = ENGINE

    def __init__(self, language_dir: Path | None = None) -> None:
        # The package installs its lingware in <prefix>/languages and finds it there.
        self._language_dir = language_dir or Path(ttspico._LANG_DIR)
        self._voices = [voice for voice in _CATALOG if self._has_lingware(voice.voice)]
        if not self._voices:
            raise EngineUnavailable(f"SVOX Pico has no lingware in {self._language_dir}.")

    def voices(self) -> list[EngineVoice]:
        return list(self._voices)

    def speak(
        self, text: str | Sequence[Part], voice: str, *, rate: float, deterministic: bool
    ) -> Audio:
        # Deterministic anyway: `deterministic` changes nothing.
        words = _marked_up(text, _PHONES[voice])
        check_text(words)
        try:
            system = ttspico.TtsEngine(voice, lang_dir=str(self._language_dir))
        except RuntimeError as exc:
            raise EngineUnavailable(f"SVOX Pico could not load its {voice} lingware.") from exc
        # Pico's speed level: percent of its own pace (20..500).
        system.rate = round(100 * rate)
        try:
            pcm = b"".join(system.speak(piece) or b"" for piece in _pieces(words))
        except (RuntimeError, ValueError) as exc:
            raise SynthesisFailed(
                f"The {ENGINE} engine could not speak this text: {exc}", param="text"
            ) from exc
        samples = np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float32)
        return spoken(_without_trailing_silence(samples / 32768.0), SAMPLE_RATE, ENGINE)

    def _has_lingware(self, language: str) -> bool:
        return any(self._language_dir.glob(f"{language}_ta.bin")) and any(
            self._language_dir.glob(f"{language}_*_sg.bin")
        )


def _marked_up(text: str | Sequence[Part], phones: frozenset[str]) -> str:
    """The text for Pico: plain text without angle brackets, each Phonemes as Pico's phoneme
    tag (its written words when none of its sounds is left), one space between parts."""
    parts = [text] if isinstance(text, str) else text
    said: list[str] = []
    for part in parts:
        if isinstance(part, Phonemes):
            symbols = ipa_to_xsampa_phones(part.ipa, phones)
            if any(symbol in phones for symbol in symbols):
                said.append(f'<phoneme alphabet="xsampa" ph="{" ".join(symbols)}"/>')
                continue
            part = part.text  # read as written
        said.append(_MARKUP.sub(" ", part))
    return " ".join(" ".join(said).split())


def _without_trailing_silence(samples: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    if samples.size == 0:
        return samples
    loud = np.nonzero(np.abs(samples) > _QUIET * float(np.max(np.abs(samples))))[0]
    end = int(loud[-1]) + 1 + round(_TAIL_S * SAMPLE_RATE) if loud.size else samples.size
    return samples[: min(end, samples.size)]


def _pieces(words: str) -> list[str]:
    """The text in pieces of at most MAX_TEXT_BYTES, cut between words, never inside a
    phoneme tag (a single longer word is cut where it must be)."""
    pieces: list[str] = []
    current = ""
    for word in _WORD_OR_TAG.findall(words):
        candidate = f"{current} {word}" if current else word
        if len(candidate.encode()) <= MAX_TEXT_BYTES:
            current = candidate
            continue
        if current:
            pieces.append(current)
        while len(word.encode()) > MAX_TEXT_BYTES:
            cut = len(word.encode()[:MAX_TEXT_BYTES].decode(errors="ignore"))
            pieces.append(word[:cut])
            word = word[cut:]
        current = word
    if current:
        pieces.append(current)
    return pieces
