"""The demo catalog: one creator and one voice for every voice the installed engines offer,
with ids that are readable and never change, loaded by `soundstage catalog load-demo`.

Voice ids: `voice_<label>` for English voices (`voice_joe`, `voice_alan`), the core of the
catalog, and `voice_<language>_<label>` for the others (`voice_es_lucia`, `voice_cmn_mei`),
ASCII-folded, lower case, `_` between words. When that id is taken by another engine voice
(two engines' "Alan"), the newcomer gets `voice_<engine>_<engine voice>` instead. An engine
voice keeps the id it was first given on every later load, whatever voices appear since, so
callers can keep voice ids in their code. Each voice's creator is `cr_<the same suffix>`.

Loading again creates or updates only what changed. It never retires a voice that an engine
no longer lists here: the machine running the loader may lack an engine the workers have.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy.orm import Session

from soundstage.engines.tts.base import EngineVoice, Gender
from soundstage.engines.tts.registry import all_voices
from soundstage.voices import service
from soundstage.voices.service import CatalogCounts, CatalogCreator, CatalogVoice

VOICE_PREFIX: Final = "voice_"
CREATOR_PREFIX: Final = "cr_"
ID_LENGTH: Final = 40  # the id columns' width
ENGLISH: Final = "en"


@dataclass(frozen=True)
class _Persona:
    display_name: str
    bio: str
    description: str


# Hand-written profiles of the English demo voices, by (engine, engine voice).
_PERSONAS: Final[Mapping[tuple[str, str], _Persona]] = {
    ("piper", "en_US-joe-medium"): _Persona(
        "Joe Whitaker",
        "Joe is an American narrator with a warm, unhurried baritone. He reads audiobooks, "
        "documentaries and e-learning courses, and keeps long texts easy to follow.",
        "Warm American male narrator; a natural neural voice for long-form reading.",
    ),
    ("festival", "cmu_us_slt_arctic_hts"): _Persona(
        "Sally Brennan",
        "Sally is an American voice actress with a clear, bright delivery. She voices explainer "
        "videos, product tours and phone menus.",
        "Clear, bright American female voice for explainers and phone menus.",
    ),
    ("festival", "kal_diphone"): _Persona(
        "Kal Dawson",
        "Kal is an American announcer with a crisp, old-school synthetic sound. He is the "
        "voice of retro games, robots and station idents.",
        "Crisp, retro-sounding American male announcer.",
    ),
    ("flite", "awb"): _Persona(
        "Alan Mackenzie",
        "Alan is a Scottish narrator from Edinburgh with a dry, measured delivery. He narrates "
        "documentaries, corporate training and guided tours.",
        "Measured Scottish male narrator.",
    ),
    ("flite", "rms"): _Persona(
        "Richard Hale",
        "Richard is an American host with a low, steady voice. He hosts podcasts and reads "
        "promos and announcements.",
        "Low, steady American male host.",
    ),
    ("flite", "slt"): _Persona(
        "Sarah Collins",
        "Sarah is an American narrator with a light, friendly tone. She voices tutorials, app "
        "walkthroughs and notifications.",
        "Light, friendly American female narrator.",
    ),
}

# English names of languages, by BCP-47 primary subtag, for the generated profiles.
_LANGUAGE_NAMES: Final[Mapping[str, str]] = {
    "ar": "Arabic",
    "ca": "Catalan",
    "cmn": "Mandarin Chinese",
    "cs": "Czech",
    "cy": "Welsh",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "es": "Spanish",
    "fa": "Persian",
    "fi": "Finnish",
    "fr": "French",
    "he": "Hebrew",
    "hi": "Hindi",
    "hu": "Hungarian",
    "id": "Indonesian",
    "is": "Icelandic",
    "it": "Italian",
    "ja": "Japanese",
    "ka": "Georgian",
    "kk": "Kazakh",
    "ko": "Korean",
    "nb": "Norwegian Bokmål",
    "ne": "Nepali",
    "nl": "Dutch",
    "no": "Norwegian",
    "pl": "Polish",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sk": "Slovak",
    "sr": "Serbian",
    "sv": "Swedish",
    "sw": "Swahili",
    "th": "Thai",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "vi": "Vietnamese",
    "zh": "Chinese",
}
_PRONOUNS: Final[Mapping[Gender, str]] = {"female": "She", "male": "He"}


def load_demo_catalog(session: Session) -> CatalogCounts:
    """Upsert the demo catalog of the engines installed here; flushes, the caller commits."""
    creators, voices = build_demo_catalog(all_voices(), service.voice_ids_by_engine_voice(session))
    return service.upsert_catalog(session, creators, voices)


def build_demo_catalog(
    engine_voices: Sequence[EngineVoice], assigned: Mapping[tuple[str, str], str]
) -> tuple[list[CatalogCreator], list[CatalogVoice]]:
    """The catalog for these engine voices, in their order (best engines first); `assigned`
    holds the ids engine voices were given before, which they keep."""
    creators: list[CatalogCreator] = []
    voices: list[CatalogVoice] = []
    taken = set(assigned.values())
    seen: set[tuple[str, str]] = set()
    for engine_voice in engine_voices:
        key = (engine_voice.engine, engine_voice.voice)
        if key in seen:
            continue
        seen.add(key)
        voice_id = assigned.get(key) or _free_id(engine_voice, taken)
        taken.add(voice_id)
        creator_id = CREATOR_PREFIX + voice_id.removeprefix(VOICE_PREFIX)
        persona = _PERSONAS.get(key) or _generated_persona(engine_voice)
        creators.append(
            CatalogCreator(
                id=creator_id,
                display_name=persona.display_name,
                bio=persona.bio,
                gender=engine_voice.gender,
                languages=[engine_voice.language],
                # The platform's own demo talent: vouched for by the platform.
                verified=True,
            )
        )
        voices.append(
            CatalogVoice(
                id=voice_id,
                creator_id=creator_id,
                name=engine_voice.label,
                description=persona.description,
                language=engine_voice.language,
                gender=engine_voice.gender,
                accent=engine_voice.accent,
                engine=engine_voice.engine,
                engine_voice=engine_voice.voice,
                # The demo engines' own defaults are right; requests set speed and pitch.
                settings={},
            )
        )
    return creators, voices


def _free_id(voice: EngineVoice, taken: set[str]) -> str:
    for candidate in _candidate_ids(voice):
        if candidate not in taken:
            return candidate
    raise AssertionError("unreachable: the numbered candidates never run out")


def _candidate_ids(voice: EngineVoice) -> Iterator[str]:
    base = _primary_subtag(voice.language)
    readable = _slug(voice.label) if base == ENGLISH else _slug(f"{base} {voice.label}")
    # A label in another script folds to nothing: only the engine-qualified id is left.
    if _slug(voice.label):
        yield _fit(readable)
    qualified = _fit(_slug(f"{voice.engine} {voice.voice}"))
    yield qualified
    number = 2
    while True:
        suffix = f"_{number}"
        yield _fit(qualified.removeprefix(VOICE_PREFIX), room=len(suffix)) + suffix
        number += 1


def _fit(slug: str, room: int = 0) -> str:
    return VOICE_PREFIX + slug[: ID_LENGTH - len(VOICE_PREFIX) - room].rstrip("_")


def _slug(text: str) -> str:
    """ASCII, lower case, `_` between words: "Ji-woo" -> "ji_woo", "Lucía" -> "lucia"."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")


def _primary_subtag(language: str) -> str:
    return language.split("-")[0].lower()


def _generated_persona(voice: EngineVoice) -> _Persona:
    language = _LANGUAGE_NAMES.get(_primary_subtag(voice.language), voice.language)
    return _Persona(
        display_name=voice.label,
        bio=f"{voice.label} is a {language} voice talent. {_PRONOUNS[voice.gender]} speaks "
        f"with a {voice.accent} accent and voices narration, e-learning and announcements.",
        description=f"{voice.gender.capitalize()} {language} voice ({voice.accent}).",
    )
