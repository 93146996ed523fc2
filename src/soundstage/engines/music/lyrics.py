"""Lyrics made from the prompt: short singable lines in plain words, built on the prompt's theme
words (falling back on common song images), happy or sad with the mood, each within the
syllables its bars can carry."""

from __future__ import annotations

import random
import re
from typing import Final

_BRIGHT: Final = (
    "we are dancing in the {t}",
    "hold on to the {t} tonight",
    "the {t} is calling me home",
    "I can feel the {t} in my heart",
    "sing it loud for the {t}",
    "you and me and the {t}",
    "all we need is the {t}",
    "we will never let the {t} go",
    "shine a light on the {t}",
    "take me back to the {t}",
    "run with me into the {t}",
    "every day is {t}",
)
_DARK: Final = (
    "I am lost without the {t}",
    "the {t} is fading away",
    "cold rain falls on the {t}",
    "I still remember the {t}",
    "alone again with the {t}",
    "where did the {t} go",
    "I keep waiting for the {t}",
    "the {t} will not come back",
    "silent nights and the {t}",
    "tears fall down on the {t}",
)
_IMAGES: Final = ("night", "light", "heart", "sky", "road", "dream", "fire", "rain", "home", "sun")
_VOWEL_GROUPS: Final = re.compile(r"[aeiouy]+")


def syllables(word: str) -> int:
    """Syllables of an English word, by vowel groups (a silent final e not counted)."""
    cleaned = re.sub(r"[^a-z]", "", word.lower())
    if not cleaned:
        return 0
    count = len(_VOWEL_GROUPS.findall(cleaned))
    if cleaned.endswith("e") and not cleaned.endswith(("le", "ee", "ye")) and count > 1:
        count -= 1
    return max(1, count)


def line_syllables(line: str) -> int:
    return sum(syllables(word) for word in line.split())


def write_lines(
    themes: tuple[str, ...], valence: float, count: int, max_syllables: int, rng: random.Random
) -> list[str]:
    """`count` different lines (as far as the templates go), each at most max_syllables long."""
    templates = list(_DARK if valence < 0 else _BRIGHT)
    rng.shuffle(templates)
    words = [w for w in themes if syllables(w) <= 3] or list(_IMAGES)
    lines: list[str] = []
    for index in range(count):
        theme = words[index % len(words)] if index < 2 * len(words) else rng.choice(_IMAGES)
        line = _fitting(templates, theme, max_syllables, index) or _fitting(
            templates, rng.choice(_IMAGES), max_syllables, index
        )
        lines.append(line or theme)
    return lines


def _fitting(templates: list[str], theme: str, max_syllables: int, start: int) -> str | None:
    for offset in range(len(templates)):
        line = templates[(start + offset) % len(templates)].format(t=theme)
        if line_syllables(line) <= max_syllables:
            return line
    return None
