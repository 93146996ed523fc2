"""The demo talent catalog, loaded by `soundstage catalog load-demo` after the voice catalog:
full profiles for the creators of every catalog voice, and several hundred generated talents.

Deterministic: the same voices give the same catalog, byte for byte, on every machine and
every load (a seeded generator, profiles seeded by creator id). The creators of catalog voices
keep the name, bio, gender, languages and verification the voice catalog gives them; they
gain roles, genres, styles, a rate card and a demo read by their own voice. Generated talents
have no catalog voice of their own: their demos are read by a catalog voice of their language
(and gender, where the catalog has one), a stand-in that the demo data does not hide
(`voice_id` names it).
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Sequence
from typing import Final

from sqlalchemy.orm import Session

from soundstage.models import Creator, Voice
from soundstage.voices import previews
from soundstage.voices import service as voices
from soundstage.workforce.talent import repository
from soundstage.workforce.talent.catalog import (
    DemoIn,
    TalentCounts,
    TalentIn,
    index_unindexed,
    upsert_talent,
)
from soundstage.workforce.vocabulary import AGE_RANGES, GENRES, ROLES, language_name

GENERATED_TALENTS: Final = 370
SEED: Final = 8

# Language of each generated talent, with weights: the catalog's voices cover every one.
_LANGUAGES: Final = {
    "en-US": 30, "en-GB": 12, "en-AU": 4, "en-CA": 3, "es-ES": 5, "es-MX": 5, "fr-FR": 5,
    "fr-CA": 2, "de-DE": 5, "it-IT": 3, "pt-BR": 4, "nl-NL": 2, "pl-PL": 2, "sv-SE": 1,
    "ru-RU": 1, "hi-IN": 1, "tr-TR": 1, "ko-KR": 1, "cmn": 1, "ar": 1, "da-DK": 1, "fi-FI": 1,
}  # fmt: skip
_ACCENTS: Final = {
    "en-US": ["General American", "Southern American", "New York", "Midwestern", "Californian"],
    "en-GB": ["RP", "Scottish", "Welsh", "Cockney", "Northern English", "Estuary"],
    "en-AU": ["Australian"], "en-CA": ["Canadian"], "es-ES": ["Castilian", "Andalusian"],
    "es-MX": ["Mexican", "Neutral Latin American"], "fr-FR": ["Parisian", "Southern French"],
    "fr-CA": ["Québécois"], "de-DE": ["Standard German", "Bavarian"],
    "it-IT": ["Standard Italian", "Roman"], "pt-BR": ["Carioca", "Paulistano"],
}  # fmt: skip
_FIRST_NAMES: Final = {
    ("en", "female"): ["Amelia", "Grace", "Hannah", "Chloe", "Olivia", "Maya", "Ruby", "Isla",
                       "Nora", "Claire", "Erin", "Tessa", "Lucy", "Jade", "Megan", "Abby"],
    ("en", "male"): ["Oliver", "James", "Ethan", "Noah", "Liam", "Owen", "Caleb", "Rhys",
                     "Declan", "Miles", "Gavin", "Harvey", "Troy", "Wes", "Colin", "Reid"],
    ("es", "female"): ["Carmen", "Lucía", "Sofía", "Valeria", "Elena", "Paula", "Ximena"],
    ("es", "male"): ["Javier", "Mateo", "Diego", "Santiago", "Pablo", "Andrés", "Emilio"],
    ("fr", "female"): ["Camille", "Chloé", "Manon", "Léa", "Juliette", "Élodie"],
    ("fr", "male"): ["Louis", "Hugo", "Théo", "Antoine", "Mathieu", "Rémi"],
    ("de", "female"): ["Lena", "Mia", "Katrin", "Jana", "Sabine", "Greta"],
    ("de", "male"): ["Lukas", "Jonas", "Felix", "Matthias", "Stefan", "Tobias"],
    ("it", "female"): ["Giulia", "Chiara", "Francesca", "Alessia"],
    ("it", "male"): ["Luca", "Matteo", "Davide", "Lorenzo"],
    ("pt", "female"): ["Beatriz", "Larissa", "Camila", "Fernanda"],
    ("pt", "male"): ["Thiago", "Rafael", "Gustavo", "Bruno"],
}  # fmt: skip
_LAST_NAMES: Final = {
    "en": ["Hart", "Walsh", "Bennett", "Carter", "Hughes", "Morgan", "Reyes", "Fletcher",
           "Doyle", "Palmer", "Quinn", "Sutton", "Brooks", "Ellis", "Shaw", "Lowe", "Nash"],
    "es": ["García", "Moreno", "Navarro", "Ortega", "Castillo", "Romero", "Vega"],
    "fr": ["Martin", "Lefèvre", "Moreau", "Girard", "Rousseau", "Fontaine"],
    "de": ["Müller", "Schneider", "Fischer", "Weber", "Becker", "Hoffmann"],
    "it": ["Rossi", "Bianchi", "Ricci", "Greco"], "pt": ["Silva", "Souza", "Costa", "Almeida"],
}  # fmt: skip
# Other languages borrow their voice's label as a first name and a neutral surname.
_OTHER_LAST: Final = ["Novak", "Lind", "Kaya", "Park", "Sato", "Rahman", "Petrov", "Nowak"]
_STYLES: Final = [
    "warm", "authoritative", "conversational", "friendly", "energetic", "calm", "gravelly",
    "smooth", "playful", "raspy", "bright", "deep", "breathy", "crisp", "trustworthy",
    "quirky", "dramatic", "soothing", "upbeat", "husky",
]  # fmt: skip
_SCRIPTS: Final = {
    "animation": "Hold on to your hats, everyone! The flying pickle ship is about to land.",
    "commercial": "This summer, taste the fresh side of life. Crisp, cool and ready when you are.",
    "audiobook": "The rain had not stopped for three days. Margaret stood by the window, "
    "wondering whether the letter would ever come.",
    "gaming": "Commander, the northern gate has fallen. Gather what is left of the guard and "
    "meet me at the tower.",
    "corporate": "Welcome to the team. In this short module, we will walk you through the "
    "tools you will use every day.",
    "promo": "Tonight at nine: the season finale you have been waiting for. Do not miss it.",
}
# Base fee ranges per usage type, in dollars; rounded to $5 in cents.
_FEES: Final = {
    "broadcast": (500, 3000),
    "internet": (150, 800),
    "non_broadcast": (100, 500),
    "audiobook": (200, 1000),
    "games": (300, 1500),
    "ai_voice": (1000, 5000),
}
_AGE_WEIGHTS: Final = (3, 7, 35, 40, 15)  # child, teen, young_adult, middle_aged, senior
_PRONOUNS: Final = {"female": "She", "male": "He", "non_binary": "They"}


def load_demo_talent(session: Session) -> TalentCounts:
    """The talent catalog, on top of the voice catalog (load_demo_catalog first); flushes, the
    caller commits."""
    counts = upsert_talent(session, build_demo_talent(session))
    # Creators made before the search index existed (the voice catalog, before this
    # migration) have no search rows until they change: give them theirs now.
    index_unindexed(session)
    return counts


def build_demo_talent(session: Session) -> list[TalentIn]:
    catalog = voices.active_voices(session)
    owners = repository.creators_by_id(session, (v.creator_id for v in catalog))
    profiles = [_voice_owner(owners[v.creator_id], v) for v in _one_voice_per_creator(catalog)]
    taken = {p.creator_id for p in profiles}
    return profiles + generate_talent(catalog, GENERATED_TALENTS, taken=taken)


def generate_talent(
    catalog: Sequence[Voice], count: int, *, seed: int = SEED, taken: set[str] | None = None
) -> list[TalentIn]:
    """`count` generated talents speaking the catalog's languages, with ids not in `taken`
    (the same seed and catalog give the same talents; the benchmark asks for 100,000)."""
    spoken = {v.language.split("-")[0].lower() for v in catalog}
    languages = {tag: w for tag, w in _LANGUAGES.items() if tag.split("-")[0].lower() in spoken}
    if not languages:
        return []
    rng = random.Random(seed)  # noqa: S311 - reproducible demo data, not secrets
    ids = _Ids(taken or set())
    return [_generated(rng, catalog, languages, ids) for _ in range(count)]


def _one_voice_per_creator(catalog: Sequence[Voice]) -> list[Voice]:
    seen: dict[str, Voice] = {}
    for voice in sorted(catalog, key=lambda v: v.id):
        seen.setdefault(voice.creator_id, voice)
    return sorted(seen.values(), key=lambda v: v.creator_id)


def _voice_owner(creator: Creator, voice: Voice) -> TalentIn:
    rng = random.Random(f"{SEED}:{creator.id}")  # noqa: S311 - reproducible demo data
    gender = creator.gender or voice.gender
    roles, genres = _roles_and_genres(rng)
    return _profile(
        rng,
        creator_id=creator.id,
        display_name=creator.display_name,
        bio=creator.bio,
        gender=gender,
        languages=list(creator.languages),
        accents=[voice.accent],
        roles=roles,
        genres=genres,
        verified=creator.verified,
        demo_voice=voice,
    )


def _generated(
    rng: random.Random, catalog: Sequence[Voice], weights: dict[str, int], ids: _Ids
) -> TalentIn:
    language = rng.choices(list(weights), weights=list(weights.values()))[0]
    base = language.split("-")[0]
    gender = rng.choices(["female", "male", "non_binary"], weights=[48, 48, 4])[0]
    voice = _stand_in(catalog, language, gender, rng)
    name_gender = gender if gender != "non_binary" else rng.choice(["female", "male"])
    first = rng.choice(_FIRST_NAMES.get((base, name_gender), [voice.name]))
    last = rng.choice(_LAST_NAMES.get(base, _OTHER_LAST))
    roles, genres = _roles_and_genres(rng)
    languages = [language] + (["en-US"] if base != "en" and rng.random() < 0.2 else [])
    accents = [rng.choice(_ACCENTS.get(language, [voice.accent]))]
    styles = rng.sample(_STYLES, rng.randint(2, 4))
    years = rng.randint(2, 25)
    pronoun = _PRONOUNS[gender]
    bio = (
        f"{first} is a {language_name(language)}-speaking "
        f"{' and '.join(r.replace('_', ' ') for r in roles)} with a {accents[0]} accent and a "
        f"{styles[0]}, {styles[1]} delivery. {pronoun} {_has(gender)} voiced "
        f"{', '.join(genres)} projects for {years} years."
    )
    return _profile(
        rng,
        creator_id=ids.allocate(f"{first} {last}"),
        display_name=f"{first} {last}",
        bio=bio,
        gender=gender,
        languages=languages,
        accents=accents,
        roles=roles,
        genres=genres,
        verified=rng.random() < 0.7,
        demo_voice=voice,
        styles=styles,
    )


def _has(gender: str) -> str:
    return "have" if gender == "non_binary" else "has"


def _profile(
    rng: random.Random,
    *,
    creator_id: str,
    display_name: str,
    bio: str,
    gender: str,
    languages: list[str],
    accents: list[str],
    roles: list[str],
    genres: list[str],
    verified: bool,
    demo_voice: Voice,
    styles: list[str] | None = None,
) -> TalentIn:
    rated = rng.random() < 0.85
    return TalentIn.model_validate(
        {
            "creator_id": creator_id,
            "display_name": display_name,
            "bio": bio,
            "roles": roles,
            "genres": genres,
            "languages": languages,
            "accents": accents,
            "vocal_styles": styles or rng.sample(_STYLES, rng.randint(2, 4)),
            "gender": gender,
            "age_range": rng.choices(AGE_RANGES, weights=_AGE_WEIGHTS)[0],
            "verified": verified,
            "rating": round(rng.uniform(3.5, 5.0), 1) if rated else None,
            "ratings_count": rng.randint(1, 250) if rated else 0,
            "rate_card": _rate_card(rng, roles, genres),
            "demos": [_demo(genre, languages[0], demo_voice) for genre in genres[:2]],
        }
    )


def _roles_and_genres(rng: random.Random) -> tuple[list[str], list[str]]:
    roles: list[str] = sorted(rng.sample(ROLES, rng.randint(1, 3)), key=ROLES.index)
    genres: list[str] = sorted(rng.sample(GENRES, rng.randint(1, 4)), key=GENRES.index)
    return roles, genres


def _rate_card(rng: random.Random, roles: list[str], genres: list[str]) -> dict[str, int]:
    offered = ["internet", "non_broadcast"]
    if rng.random() < 0.7:
        offered.append("broadcast")
    if "narrator" in roles or "audiobook" in genres:
        offered.append("audiobook")
    if "gaming" in genres or "voice_actor" in roles:
        offered.append("games")
    if rng.random() < 0.3:
        offered.append("ai_voice")
    card = {}
    for usage in offered:
        low, high = _FEES[usage]
        card[usage] = rng.randint(low // 5, high // 5) * 500
    return card


def _demo(genre: str, language: str, voice: Voice) -> DemoIn:
    english = language.split("-")[0] == "en"
    return DemoIn.model_validate(
        {
            "title": f"{genre.capitalize()} demo",
            "genre": genre,
            "language": language,
            "script": _SCRIPTS[genre] if english else previews.sample_text(language),
            "voice_id": voice.id,
        }
    )


def _stand_in(catalog: Sequence[Voice], language: str, gender: str, rng: random.Random) -> Voice:
    """A catalog voice of the language's base (the same gender where there is one)."""
    base = language.split("-")[0].lower()
    speakers = sorted(
        (v for v in catalog if v.language.split("-")[0].lower() == base), key=lambda v: v.id
    )
    return rng.choice([v for v in speakers if v.gender == gender] or speakers)


class _Ids:
    """Readable creator ids from names (`cr_amelia_hart`), numbered from 2 when taken."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = set(taken)
        self.next_number: dict[str, int] = {}

    def allocate(self, name: str) -> str:
        ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
        slug = "cr_" + re.sub(r"[^a-z0-9]+", "_", ascii_name.lower()).strip("_")[:30]
        candidate = slug
        while candidate in self.taken:
            number = self.next_number.get(slug, 2)
            self.next_number[slug] = number + 1
            candidate = f"{slug}_{number}"
        self.taken.add(candidate)
        return candidate
