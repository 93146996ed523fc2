"""The marketplace's closed vocabularies (roles, genres, usage types, …) and BCP-47 tags."""

from __future__ import annotations

import functools
import re
from typing import Annotated, Final, Literal, get_args

import pycountry
from pydantic import AfterValidator, Field

Role = Literal["voice_actor", "narrator", "host", "announcer"]
Genre = Literal["animation", "commercial", "audiobook", "gaming", "corporate", "promo"]
UsageType = Literal["broadcast", "internet", "non_broadcast", "audiobook", "games", "ai_voice"]
Gender = Literal["female", "male", "non_binary"]
AgeRange = Literal["child", "teen", "young_adult", "middle_aged", "senior"]

ROLES: Final[tuple[Role, ...]] = get_args(Role)
GENRES: Final[tuple[Genre, ...]] = get_args(Genre)
USAGE_TYPES: Final[tuple[UsageType, ...]] = get_args(UsageType)
GENDERS: Final[tuple[Gender, ...]] = get_args(Gender)
AGE_RANGES: Final[tuple[AgeRange, ...]] = get_args(AgeRange)
CURRENCY: Final = "USD"

# A BCP-47 tag or a prefix of one: a 2-8 letter language, then subtags of 1-8 letters/digits.
LANGUAGE_PATTERN: Final = r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$"
_LANGUAGE = re.compile(LANGUAGE_PATTERN, re.ASCII)


def canonical_tag(tag: str) -> str:
    """BCP-47's conventional case: `EN-gb` -> `en-GB`, `zh-hant-tw` -> `zh-Hant-TW`."""
    first, *rest = tag.split("-")
    parts = [first.lower()]
    for subtag in rest:
        if len(subtag) == 4 and subtag.isalpha():
            parts.append(subtag.title())  # script
        elif (len(subtag) == 2 and subtag.isalpha()) or (len(subtag) == 3 and subtag.isdigit()):
            parts.append(subtag.upper())  # region
        else:
            parts.append(subtag.lower())
    return "-".join(parts)


@functools.lru_cache(maxsize=4096)
def language_name(tag: str) -> str | None:
    """English name of a tag's ISO 639 language (`en-GB` -> "English"), None if unknown."""
    primary = tag.split("-")[0].lower()
    if len(primary) not in (2, 3):
        return None
    language = pycountry.languages.get(**{f"alpha_{len(primary)}": primary})
    return str(language.name) if language is not None else None


def _language_tag(value: str) -> str:
    if not _LANGUAGE.fullmatch(value) or language_name(value) is None:
        raise ValueError("must be a BCP-47 tag of an ISO 639 language, such as `en` or `en-GB`")
    return canonical_tag(value)


LanguageTag = Annotated[
    str,
    Field(min_length=2, max_length=35, description="BCP-47 tag, e.g. `en-GB`."),
    AfterValidator(_language_tag),
]


def language_ranges(tag: str) -> list[str]:
    """Every prefix of a tag, lower case: `en-GB` -> [`en`, `en-gb`]. A creator is indexed
    under each, so that a filter on a base tag finds its regional variants (RFC 4647 basic
    filtering) by equality."""
    parts = tag.lower().split("-")
    return ["-".join(parts[: n + 1]) for n in range(len(parts))]
