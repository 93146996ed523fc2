"""Adjectives that steer a sound: found in the prompt by word (with their common synonyms),
turned into recipe parameters (density, event length, pitch) and into the placement of the
sound (level, distance filtering, room, muffling, metallic ringing, brightness)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

# Each modifier and the words (regular expressions, whole words) that ask for it. Pairs that
# contradict each other (distant/close, heavy/light, short/long, indoor/outdoor) are resolved
# in favour of the one written first.
MODIFIER_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "distant": (
        "distant",
        "far",
        "far[- ]off",
        "far away",
        "faraway",
        "in the distance",
        "from afar",
        "remote",
        "faint",
    ),
    "close": (
        "close",
        "close[- ]up",
        "near",
        "nearby",
        "up close",
        "right next to",
        "in your face",
        "intimate",
        "close[- ]miked",
    ),
    "heavy": (
        "heavy",
        "heavily",
        "intense",
        "loud",
        "strong",
        "big",
        "huge",
        "massive",
        "powerful",
        "violent",
        "torrential",
        "pounding",
        "hard",
    ),
    "light": (
        "light",
        "lightly",
        "gentle",
        "gently",
        "soft",
        "softly",
        "quiet",
        "small",
        "little",
        "tiny",
        "subtle",
        "delicate",
        "calm",
    ),
    "short": ("short", "quick", "brief", "fast", "snappy", "rapid"),
    "deep": ("deep", "deeper", "bassy", "low[- ]pitched", "low[- ]frequency"),
    "bright": ("bright", "brighter", "crisp", "sparkling", "sparkly", "airy", "brilliant"),
    "long": ("long", "slow", "slowly", "sustained", "lingering", "drawn[- ]out", "extended"),
    "metallic": ("metallic", "metal", "tin", "steel", "iron", "tinny", "clanging", "corrugated"),
    "muffled": (
        "muffled",
        "muted",
        "through a wall",
        "through the wall",
        "underwater",
        "behind a door",
        "behind the door",
        "dull",
        "dampened",
        "next door",
    ),
    "indoor": (
        "indoor",
        "indoors",
        "inside",
        "in a room",
        "in the room",
        "in a hall",
        "in the house",
        "in a house",
        "in a church",
        "in a cathedral",
        "in a kitchen",
        "in a bathroom",
        "in a corridor",
        "in a hallway",
        "in a cave",
        "interior",
    ),
    "outdoor": (
        "outdoor",
        "outdoors",
        "outside",
        "in the open",
        "open air",
        "open-air",
        "in a field",
        "in the park",
        "in a park",
        "in the street",
        "on the street",
        "exterior",
    ),
}
_OPPOSITES: Final = (
    ("distant", "close"),
    ("heavy", "light"),
    ("short", "long"),
    ("deep", "bright"),
    ("indoor", "outdoor"),
)
_PATTERNS: Final = {
    name: re.compile(r"\b(?:" + "|".join(words) + r")\b", re.IGNORECASE)
    for name, words in MODIFIER_WORDS.items()
}
SPACES: Final = ("indoor", "outdoor")
# A deep sound: its recipe rendered this much shorter, then played slower to the full length.
DEEP_PITCH: Final = 0.75


def find_modifiers(text: str) -> tuple[str, ...]:
    """The modifiers a piece of prompt asks for, in a fixed order, contradictions resolved."""
    found: dict[str, int] = {}
    for name, pattern in _PATTERNS.items():
        match = pattern.search(text)
        if match:
            found[name] = match.start()
    for first, second in _OPPOSITES:
        if first in found and second in found:
            del found[second if found[first] <= found[second] else first]
    return tuple(name for name in MODIFIER_WORDS if name in found)


def strip_modifiers(text: str) -> str:
    """The text without its steering words (what is left names the sound itself)."""
    for pattern in _PATTERNS.values():
        text = pattern.sub(" ", text)
    return " ".join(text.split())


@dataclass(frozen=True)
class Steering:
    """What the modifiers do to one element of the scene."""

    modifiers: tuple[str, ...] = ()

    def has(self, name: str) -> bool:
        return name in self.modifiers

    @property
    def intensity(self) -> float:
        """Density and force of the recipe's events."""
        return 1.6 if self.has("heavy") else 0.6 if self.has("light") else 1.0

    @property
    def span(self) -> float:
        """How long each event lasts."""
        return 0.55 if self.has("short") else 1.8 if self.has("long") else 1.0

    @property
    def pitch(self) -> float:
        """Playback speed of the recipe: a deep sound is played a fourth lower (and slower)."""
        return DEEP_PITCH if self.has("deep") else 1.0

    @property
    def gain_db(self) -> float:
        gain = 0.0
        gain += 3.0 if self.has("heavy") else -6.0 if self.has("light") else 0.0
        gain += -8.0 if self.has("distant") else 2.0 if self.has("close") else 0.0
        gain += -4.0 if self.has("muffled") else 0.0
        return gain

    def with_space(self, space: str | None) -> Steering:
        """The scene's space (indoor/outdoor) for an element that names none of its own."""
        if space is None or any(self.has(s) for s in SPACES):
            return self
        return Steering(tuple(m for m in MODIFIER_WORDS if m in (*self.modifiers, space)))
