"""Apertium (Debian's `apertium` and its language-pair packages): rule-based translation, one
process per call (about 0.25 s), every installed mode, and pivots through Spanish, the
language most pairs share (English to French is eng-spa then es-fr).

Quality is that of shallow-transfer rules: word order and agreement are often wrong, idioms
are translated word for word, and words the dictionaries lack are passed through unchanged.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from itertools import pairwise
from typing import Final

import pycountry

from soundstage.engines.translators.base import (
    LanguagePair,
    SourceUtterance,
    TranslatorUnavailable,
)

NAME: Final = "apertium"
PIVOT: Final = "es"
_TIMEOUT_SECONDS: Final = 120
# A blank line is a paragraph break Apertium never translates across: the utterances of a
# call are sent as paragraphs and split again at blank lines.
_PARAGRAPH: Final = "\n\n"
# What Apertium's output marks: '#' a word it could not generate, '@' one it could not
# transfer, '*' one it does not know (only without -u).
_MARKS: Final = re.compile(r"(?<!\w)[#@*](?=\w)")
_SPACE_BEFORE_PUNCTUATION: Final = re.compile(r"\s+([,.;:!?\u2026)\]\u00bb])")
_SPACE_AFTER_OPENING: Final = re.compile(r"([(\[\u00ab\u00bf\u00a1])\s+")
# Apertium keeps English compounds' hyphens between the translated parts ("enfermo-hombre"),
# which voices then run together: they are read as two words.
_HYPHEN: Final = re.compile(r"(?<=\w)-(?=\w)")


def _language(code: str) -> str | None:
    """Apertium's language code (eng, spa, es, pt) as a two-letter BCP-47 subtag."""
    if len(code) == 2:
        return code
    entry = pycountry.languages.get(alpha_3=code)
    two_letter = getattr(entry, "alpha_2", None)
    return str(two_letter) if two_letter else None


def parse_modes(listing: str) -> dict[tuple[str, str], str]:
    """`apertium -l` as {(source, target): mode}. Regional modes (es-pt_BR) are used only
    when they are the only one of their direction; chained and other modes of more than two
    parts (eco-es-fr) are left out."""
    modes: dict[tuple[str, str], str] = {}
    for line in listing.split():
        mode = line.strip()
        parts = mode.split("-")
        if len(parts) != 2:
            continue
        source, target = _language(parts[0]), _language(parts[1].split("_")[0])
        if source is None or target is None or source == target:
            continue
        regional = "_" in parts[1]
        if (source, target) not in modes or not regional:
            modes[(source, target)] = mode
    return modes


def tidy(text: str) -> str:
    """Apertium's output as a reader expects it: no marks, no space before punctuation, no
    hyphens between words."""
    text = _MARKS.sub("", text)
    text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", text)
    text = _SPACE_AFTER_OPENING.sub(r"\1", text)
    text = _HYPHEN.sub(" ", text)
    return " ".join(text.split())


class ApertiumTranslator:
    name = NAME

    def __init__(self, binary: str, modes: dict[tuple[str, str], str]) -> None:
        self._binary = binary
        self._modes = modes

    @classmethod
    def load(cls) -> ApertiumTranslator:
        """ImportError when Apertium is not installed (the registry leaves it out)."""
        binary = shutil.which("apertium")
        if binary is None:
            raise ImportError("the apertium program is not installed")
        try:
            listed = subprocess.run(
                [binary, "-l"], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ImportError(f"apertium -l failed: {exc}") from exc
        if listed.returncode != 0:
            # Unavailable, not an engine with no pairs: the registry tries again next time.
            detail = listed.stderr.strip()[-200:]
            raise ImportError(f"apertium -l exited with {listed.returncode}: {detail}")
        return cls(binary, parse_modes(listed.stdout))

    def pairs(self) -> list[LanguagePair]:
        direct = [LanguagePair(s, t, NAME) for s, t in self._modes]
        pivoted = [
            LanguagePair(source, target, NAME, via=(PIVOT,))
            for source, to_pivot in self._modes
            if to_pivot == PIVOT
            for from_pivot, target in self._modes
            if from_pivot == PIVOT and target != source and (source, target) not in self._modes
        ]
        return direct + pivoted

    def translate(self, utterances: Sequence[SourceUtterance], pair: LanguagePair) -> list[str]:
        texts = [utterance.text for utterance in utterances]
        steps = [pair.source, *pair.via, pair.target]
        for source, target in pairwise(steps):
            mode = self._modes.get((source, target))
            if mode is None:
                raise TranslatorUnavailable(f"Apertium has no {source}-{target} mode here.")
            texts = self._translate_all(texts, mode)
        return [tidy(text) for text in texts]

    def _translate_all(self, texts: list[str], mode: str) -> list[str]:
        """One call for all the texts; one per text if the paragraphs did not come back one
        for one (a text with a blank line of its own, say)."""
        cleaned = [" ".join(text.split()) for text in texts]
        spoken = [index for index, text in enumerate(cleaned) if text]
        out = [""] * len(texts)
        if not spoken:
            return out
        joined = self._run(mode, _PARAGRAPH.join(cleaned[i] for i in spoken))
        parts = [part.strip() for part in joined.strip().split(_PARAGRAPH)]
        if len(parts) != len(spoken):
            parts = [self._run(mode, cleaned[i]).strip() for i in spoken]
        for index, part in zip(spoken, parts, strict=True):
            out[index] = " ".join(part.split())
        return out

    def _run(self, mode: str, text: str) -> str:
        try:
            done = subprocess.run(
                [self._binary, "-u", mode],
                input=text + "\n",
                capture_output=True,
                text=True,
                timeout=_TIMEOUT_SECONDS,
                check=True,
            )
        except FileNotFoundError as exc:
            raise TranslatorUnavailable("The apertium program is not installed.") from exc
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            detail = str(getattr(exc, "stderr", "") or exc)[-200:]
            raise TranslatorUnavailable(f"Apertium {mode} failed: {detail}") from exc
        return done.stdout
