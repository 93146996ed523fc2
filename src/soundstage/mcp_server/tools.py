"""The MCP tools and resources: each a thin call into the service its HTTP endpoint calls, with
that endpoint's request model, for the caller's account (`callers.current()`)."""

from __future__ import annotations

import json

from starlette.concurrency import run_in_threadpool

from soundstage.accounts import verification
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError
from soundstage.creative.music import service as music
from soundstage.creative.music.schemas import MusicRequest, MusicResponse
from soundstage.creative.sound import service as sound
from soundstage.creative.sound.schemas import SoundRequest, SoundResponse
from soundstage.credits import service as credits
from soundstage.credits.schemas import CreditBalanceOut
from soundstage.mcp_server import callers, errors
from soundstage.mcp_server.schemas import (
    NoArguments,
    StudioList,
    StudioSearch,
    TalentList,
    TalentSearch,
    VoiceList,
    VoiceSearch,
)
from soundstage.speech.isolator import service as isolator
from soundstage.speech.isolator.schemas import IsolationRequest, IsolationResponse
from soundstage.speech.stt import service as stt
from soundstage.speech.stt.schemas import SttRequest, SttResponse
from soundstage.speech.tts import service as tts
from soundstage.speech.tts.schemas import TtsRequest, TtsResponse
from soundstage.studios import service as studios
from soundstage.voices import service as voices
from soundstage.voices.schemas import VoiceOut
from soundstage.workforce.talent import service as talent


class Tools:
    """The tools' bodies, over the app's (or the stdio process's) database and settings."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings

    async def text_to_speech(self, body: TtsRequest) -> TtsResponse:
        return await tts.synthesize(self.db, self.settings, callers.current(), body)

    async def speech_to_text(self, body: SttRequest) -> SttResponse:
        return await stt.transcribe(self.db, self.settings, callers.current(), body)

    async def isolate_voice(self, body: IsolationRequest) -> IsolationResponse:
        return await isolator.isolate(self.db, self.settings, callers.current(), body)

    async def generate_sound_effect(self, body: SoundRequest) -> SoundResponse:
        return await sound.generate(self.db, self.settings, callers.current(), body)

    async def generate_music(self, body: MusicRequest) -> MusicResponse:
        return await music.generate(self.db, self.settings, callers.current(), body)

    async def list_voices(self, body: VoiceSearch) -> VoiceList:
        callers.current()

        def read() -> tuple[list[VoiceOut], bool]:
            with self.db.read_session() as session:
                return voices.list_voices(
                    session,
                    self.settings,
                    body.page(),
                    language=body.language,
                    gender=body.gender,
                    sort=body.sort,
                )

        found, has_more = await run_in_threadpool(read)
        return VoiceList(data=found, has_more=has_more)

    async def search_talent(self, body: TalentSearch) -> TalentList:
        # The gate of the search endpoint, the same dependency (403 `buyer_not_verified`).
        await verification.require_verified_buyer(self.db, callers.current())

        def read() -> TalentList:
            with self.db.read_session() as session:
                hits, has_more = talent.search(
                    session, self.settings, body.q, body.filters(), body.page()
                )
                return TalentList(data=hits, has_more=has_more)

        return await run_in_threadpool(read)

    async def search_studios(self, body: StudioSearch) -> StudioList:
        callers.current()

        def read() -> StudioList:
            with self.db.read_session() as session:
                found, has_more = studios.discover(
                    session,
                    body.page(),
                    city=body.city,
                    state=body.state,
                    studio_type=body.type,
                    capacity=body.capacity,
                )
                return StudioList(data=found, has_more=has_more)

        return await run_in_threadpool(read)

    async def get_credits(self, body: NoArguments) -> CreditBalanceOut:
        principal = callers.current()

        def read() -> CreditBalanceOut:
            with self.db.read_session() as session:
                balance = credits.get_balance(session, principal)
                return CreditBalanceOut(
                    environment=balance.environment,
                    balance=balance.available,
                    reserved=balance.reserved,
                    updated_at=balance.updated_at,
                )

        return await run_in_threadpool(read)

    # Resources: JSON documents.

    async def voice_catalog(self) -> str:
        """Every active voice, language by language, the best-rated first."""
        callers.current()

        def read() -> list[VoiceOut]:
            with self.db.read_session() as session:
                return voices.all_voices(session, self.settings)

        catalog = await run_in_threadpool(read)
        data = [voice.model_dump(mode="json") for voice in catalog]
        return json.dumps({"object": "list", "data": data}, ensure_ascii=False)

    async def voice(self, voice_id: str) -> str:
        """One voice of the catalog (a resource error, not found, for an unknown one)."""
        callers.current()

        def read() -> VoiceOut:
            with self.db.read_session() as session:
                return voices.get_voice(session, self.settings, voice_id)

        try:
            found = await run_in_threadpool(read)
        except AppError as error:
            raise errors.resource_error(error) from error
        return found.model_dump_json()
