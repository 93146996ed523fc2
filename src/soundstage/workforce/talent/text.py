"""What the search and filter indexes hold for a creator, derived from the profile: folded
tokens for full-text search and `kind:value` tags for filters. Both databases are given the
same folded tokens, so that SQLite's FTS5 and PostgreSQL's full-text search agree."""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from soundstage.models import Creator
from soundstage.workforce.vocabulary import language_name, language_ranges

_WORD = re.compile(r"[^\W_]+")
MAX_QUERY_TERMS = 16


def fold(text: str) -> str:
    """Lower case, accents removed, words joined by single spaces: "Zoë's voice-over" ->
    "zoe s voice over"."""
    # Attributes repeat across a catalog (styles, accents, roles): fold each once.
    return _fold_short(text) if len(text) <= _SHORT else _fold(text)


_SHORT = 100


@functools.lru_cache(maxsize=65_536)
def _fold_short(text: str) -> str:
    return _fold(text)


def _fold(text: str) -> str:
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_WORD.findall(text.lower()))


def query_terms(text: str) -> list[str]:
    """The words of a free-text query, folded like the index, at most MAX_QUERY_TERMS."""
    return fold(text).split()[:MAX_QUERY_TERMS]


def _words(values: Iterable[str | None]) -> str:
    return " ".join(fold(v.replace("_", " ")) for v in values if v)


@dataclass(frozen=True)
class SearchText:
    name_text: str
    attributes_text: str
    bio_text: str
    # The filter tags as opaque words, so that the full-text index answers the filters too.
    tags_text: str


def search_text(creator: Creator) -> SearchText:
    attributes = [
        *creator.roles,
        *creator.genres,
        *(language_name(tag) or "" for tag in creator.languages),
        *creator.languages,
        *creator.accents,
        *creator.vocal_styles,
        creator.gender,
        creator.age_range,
    ]
    return SearchText(
        name_text=fold(creator.display_name),
        attributes_text=_words(attributes),
        bio_text=fold(creator.bio),
        tags_text=" ".join(sorted(tag_token(t) for t in search_tags(creator))),
    )


def tag(kind: str, value: str) -> str:
    return f"{kind}:{fold(value) if kind in ('accent', 'style') else value.lower()}"


def tags(creator: Creator) -> set[str]:
    """The filter tags of a creator: roles, genres, every prefix of each language, accents
    and vocal styles (the scalar attributes are filtered on their own columns)."""
    found = {tag("role", r) for r in creator.roles}
    found |= {tag("genre", g) for g in creator.genres}
    found |= {tag("language", prefix) for t in creator.languages for prefix in language_ranges(t)}
    found |= {tag("accent", a) for a in creator.accents if fold(a)}
    found |= {tag("style", s) for s in creator.vocal_styles if fold(s)}
    return found


def search_tags(creator: Creator) -> set[str]:
    """The tags, and the scalar attributes as tags, for the full-text index."""
    found = tags(creator)
    if creator.gender:
        found.add(tag("gender", creator.gender))
    if creator.age_range:
        found.add(tag("age_range", creator.age_range))
    if creator.verified:
        found.add(tag("verified", "true"))
    return found


@functools.lru_cache(maxsize=65_536)
def tag_token(value: str) -> str:
    """A tag as one word that no text holds and both tokenizers keep whole (letters and digits
    only): `genre:gaming` -> "tg" + 20 hex digits."""
    return "tg" + hashlib.sha256(value.encode()).hexdigest()[:20]
