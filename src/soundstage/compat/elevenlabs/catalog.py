"""ElevenLabs' reads mapped onto Soundstage's: the voice catalog (v1 whole, v2 searched and
paged), the models (one text-to-speech and one speech-to-speech model: the voice decides the
engine) and the subscription (the credit balance as characters)."""

from __future__ import annotations

from collections.abc import Sequence

import pycountry
from sqlalchemy.orm import Session

from soundstage.accounts import service as accounts
from soundstage.compat.elevenlabs.schemas import (
    ElevenLabsLanguage,
    ElevenLabsModel,
    ElevenLabsSubscription,
    ElevenLabsUser,
    ElevenLabsVerifiedLanguage,
    ElevenLabsVoice,
    ElevenLabsVoiceSettingsOut,
    ElevenLabsVoicesResponse,
    ElevenLabsVoicesV2Response,
)
from soundstage.compat.voice_aliases import ELEVENLABS_VOICES
from soundstage.config import Settings
from soundstage.core.errors import InvalidField
from soundstage.core.principal import Principal
from soundstage.credits import service as credits
from soundstage.speech.tts.schemas import MAX_TEXT_CHARACTERS
from soundstage.voices import service as voices
from soundstage.voices.schemas import VoiceOut

TTS_MODEL = "soundstage_tts"
STS_MODEL = "soundstage_sts"


def voice(out: VoiceOut, *, with_settings: bool = True) -> ElevenLabsVoice:
    primary = out.language.split("-")[0].lower()
    return ElevenLabsVoice(
        voice_id=out.voice_id,
        name=out.name,
        labels={
            "gender": out.gender,
            "accent": out.accent,
            "language": primary,
            "locale": out.language,
            "engine": out.engine,
        },
        description=out.description,
        preview_url=out.preview_url,
        settings=ElevenLabsVoiceSettingsOut() if with_settings else None,
        high_quality_base_model_ids=[TTS_MODEL],
        verified_languages=[
            ElevenLabsVerifiedLanguage(
                language=primary, model_id=TTS_MODEL, accent=out.accent, locale=out.language
            )
        ],
        created_at_unix=int(out.created_at.timestamp()),
    )


def list_voices(session: Session, settings: Settings) -> ElevenLabsVoicesResponse:
    return ElevenLabsVoicesResponse(voices=[voice(v) for v in voices.all_voices(session, settings)])


def get_voice(
    session: Session, settings: Settings, voice_id: str, *, with_settings: bool
) -> ElevenLabsVoice:
    """A catalog voice; an ElevenLabs premade id (compat.voice_aliases) answers the catalog
    voice it is read by, under the premade id and name ("George (Alan)")."""
    alias = ELEVENLABS_VOICES.get(voice_id)
    if alias is None:
        return voice(voices.get_voice(session, settings, voice_id), with_settings=with_settings)
    found = voice(voices.get_voice(session, settings, alias.voice_id), with_settings=with_settings)
    name = alias.vendor_voice.split(" (")[0]
    return found.model_copy(update={"voice_id": voice_id, "name": f"{name} ({found.name})"})


def _matches(
    out: VoiceOut,
    search: str | None,
    gender: str | None,
    languages: Sequence[str],
    voice_ids: Sequence[str],
) -> bool:
    if search:
        haystack = " ".join((out.name, out.description, out.accent, out.voice_id)).lower()
        if search.lower() not in haystack:
            return False
    if gender and out.gender != gender.lower():
        return False
    tag = out.language.lower()
    if languages and not any(
        tag == x.lower() or tag.startswith(x.lower() + "-") for x in languages
    ):
        return False
    return not voice_ids or out.voice_id in voice_ids


def search_voices(
    session: Session,
    settings: Settings,
    *,
    search: str | None,
    page_size: int,
    next_page_token: str | None,
    gender: str | None,
    languages: Sequence[str],
    voice_ids: Sequence[str],
) -> ElevenLabsVoicesV2Response:
    """The voices matching every filter given, newest first, `page_size` at a time; the
    token is the last voice id of the previous page."""
    found = [
        v
        for v in voices.all_voices(session, settings)
        if _matches(v, search, gender, languages, voice_ids)
    ]
    start = 0
    if next_page_token is not None:
        ids = [v.voice_id for v in found]
        if next_page_token not in ids:
            raise InvalidField(
                f"next_page_token: {next_page_token!r} is not a token this search gave.",
                param="next_page_token",
            )
        start = ids.index(next_page_token) + 1
    page = found[start : start + page_size]
    has_more = start + page_size < len(found)
    return ElevenLabsVoicesV2Response(
        voices=[voice(v) for v in page],
        has_more=has_more,
        total_count=len(found),
        next_page_token=page[-1].voice_id if has_more and page else None,
    )


def _language_name(code: str) -> str:
    entry = pycountry.languages.get(alpha_2=code) if len(code) == 2 else None
    if entry is None and len(code) == 3:
        entry = pycountry.languages.get(alpha_3=code)
    return str(getattr(entry, "name", code))


def models(session: Session) -> list[ElevenLabsModel]:
    codes = sorted({v.language.split("-")[0].lower() for v in voices.active_voices(session)})
    languages = [ElevenLabsLanguage(language_id=c, name=_language_name(c)) for c in codes]
    limits = {
        "max_characters_request_free_user": MAX_TEXT_CHARACTERS,
        "max_characters_request_subscribed_user": MAX_TEXT_CHARACTERS,
        "maximum_text_length_per_request": MAX_TEXT_CHARACTERS,
    }
    return [
        ElevenLabsModel(
            model_id=TTS_MODEL,
            name="Soundstage text to speech",
            description="Every catalog voice, each spoken by its own engine; any `model_id` "
            "sent to text to speech is taken as this one. 1 credit a character.",
            can_do_text_to_speech=True,
            can_do_voice_conversion=False,
            languages=languages,
            **limits,
        ),
        ElevenLabsModel(
            model_id=STS_MODEL,
            name="Soundstage voice changer",
            description="Speech to speech: the same words and timing in a catalog voice.",
            can_do_text_to_speech=False,
            can_do_voice_conversion=True,
            languages=languages,
            **limits,
        ),
    ]


def user(session: Session, principal: Principal) -> ElevenLabsUser:
    account = accounts.get_account(session, principal.account_id)
    return ElevenLabsUser(
        user_id=account.id,
        workspace_id=account.id,
        subscription=subscription(session, principal),
        first_name=account.name,
        created_at=int(account.created_at.timestamp()),
    )


def subscription(session: Session, principal: Principal) -> ElevenLabsSubscription:
    balance = credits.get_balance(session, principal)
    return ElevenLabsSubscription(
        tier=principal.environment, character_count=0, character_limit=balance.available
    )
