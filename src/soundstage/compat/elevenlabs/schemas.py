"""Request and response bodies of the ElevenLabs-compatible API, as the official SDK (2.78)
sends and reads them. Every field the SDK can send is declared: those Soundstage does not
act on are accepted and ignored (each says so), a few that would change the answer into
something this service cannot make are refused with 422 when set."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from soundstage.core.errors import InvalidField
from soundstage.core.params import QueryBool, QueryInt
from soundstage.core.schemas import RequestModel
from soundstage.creative.sound.schemas import MAX_PROMPT_CHARACTERS
from soundstage.speech.tts.schemas import MAX_TEXT_CHARACTERS

# ElevenLabs' `codec_samplerate_bitrate` names, each made exactly (codec and rate).
StreamFormat = Literal[
    "mp3_22050_32",
    "mp3_24000_48",
    "mp3_44100_32",
    "mp3_44100_64",
    "mp3_44100_96",
    "mp3_44100_128",
    "mp3_44100_192",
    "pcm_8000",
    "pcm_16000",
    "pcm_22050",
    "pcm_24000",
    "pcm_32000",
    "pcm_44100",
    "pcm_48000",
    "ulaw_8000",
    "alaw_8000",
    "opus_48000_32",
    "opus_48000_64",
    "opus_48000_96",
    "opus_48000_128",
    "opus_48000_192",
]
# WAV only where the answer is sent whole (its header states the sizes).
WholeFormat = (
    StreamFormat
    | Literal[
        "wav_8000", "wav_16000", "wav_22050", "wav_24000", "wav_32000", "wav_44100", "wav_48000"
    ]
)
DEFAULT_FORMAT: Final = "mp3_44100_128"
MAX_SEED = 2**32 - 1
MAX_ID = 64


_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?", re.ASCII)


def _form_float(value: Any) -> Any:
    if isinstance(value, str):
        if not _NUMBER.fullmatch(value):
            raise ValueError("must be a number in its JSON spelling")
        return float(value)
    return value


# Form values are text: booleans, integers and numbers are read as their JSON spelling
# (`true`, `2`, `0.5`), as query parameters are (core.params); the models stay strict.
FormBool = QueryBool
FormInt = QueryInt
FormFloat = Annotated[float, BeforeValidator(_form_float)]


class FormModel(BaseModel):
    """The fields of a multipart form (besides its files), strict like every body. FastAPI
    hands the model every field of the form, the files too: the app-wide check refuses the
    undeclared ones (core.params), so the model itself ignores what it does not read."""

    model_config = ConfigDict(extra="ignore", strict=True)


def refuse_if_set(value: Any, what: str) -> Any:
    if value:
        raise ValueError(f"{what} is not supported by this service; leave it out")
    return value


class ElevenLabsVoiceSettings(RequestModel):
    """`speed` is honoured; the others are accepted and ignored (Soundstage's voices have no
    stability or style controls)."""

    stability: float | None = Field(default=None, ge=0, le=1, description="Ignored.")
    similarity_boost: float | None = Field(default=None, ge=0, le=1, description="Ignored.")
    style: float | None = Field(default=None, ge=0, le=1, description="Ignored.")
    use_speaker_boost: bool | None = Field(default=None, description="Ignored.")
    speed: float | None = Field(
        default=None, ge=0.7, le=1.2, description="0.7 to 1.2 (ElevenLabs' range); default 1."
    )
    clone_strength: float | None = Field(default=None, ge=0, le=1, description="Ignored.")


class ElevenLabsDictionaryLocator(RequestModel):
    pronunciation_dictionary_id: str = Field(max_length=MAX_ID)
    version_id: str | None = Field(default=None, max_length=MAX_ID)


class ElevenLabsSpeechFields(RequestModel):
    """What text to speech and text to dialogue both take besides their text and voices."""

    model_id: str | None = Field(
        default=None, max_length=MAX_ID, description="Accepted, ignored: the voice decides."
    )
    language_code: str | None = Field(
        default=None, max_length=35, description="Accepted, ignored: the voice's language."
    )
    pronunciation_dictionary_locators: list[ElevenLabsDictionaryLocator] | None = Field(
        default=None,
        max_length=3,
        description="Up to 3: the native API's pronunciation dictionaries (their ids and "
        "versions).",
    )
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED, description="Accepted, ignored.")
    previous_request_ids: list[str] | None = Field(
        default=None, max_length=3, description="Accepted, ignored."
    )
    next_request_ids: list[str] | None = Field(
        default=None, max_length=3, description="Accepted, ignored."
    )
    use_pvc_as_ivc: bool | None = Field(default=None, description="Accepted, ignored.")
    apply_text_normalization: Literal["auto", "on", "off"] | None = Field(
        default=None, description="As the native API's: auto (default, the same as on), on, off."
    )
    audio_effects: dict[str, Any] | None = Field(
        default=None, description="Not supported: 422 when set."
    )

    @field_validator("previous_request_ids", "next_request_ids")
    @classmethod
    def _short_ids(cls, value: list[str] | None) -> list[str] | None:
        if value and any(len(item) > MAX_ID for item in value):
            raise ValueError(f"request ids are at most {MAX_ID} characters")
        return value

    @field_validator("audio_effects")
    @classmethod
    def _no_effects(cls, value: dict[str, Any] | None) -> Any:
        return refuse_if_set(value, "audio_effects")

    def dictionary_locators(self) -> list[dict[str, str | None]]:
        """The dictionaries as the native API's `pronunciation_dictionary_locators`."""
        return [
            {"dictionary_id": locator.pronunciation_dictionary_id, "version_id": locator.version_id}
            for locator in self.pronunciation_dictionary_locators or []
        ]


class ElevenLabsTextToSpeechBody(ElevenLabsSpeechFields):
    # The text is charged per character as sent: it is not trimmed.
    model_config = ConfigDict(str_strip_whitespace=False)

    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARACTERS, description="1 to 5,000.")
    voice_settings: ElevenLabsVoiceSettings | None = None
    previous_text: str | None = Field(
        default=None, max_length=MAX_TEXT_CHARACTERS, description="Accepted, ignored."
    )
    next_text: str | None = Field(
        default=None, max_length=MAX_TEXT_CHARACTERS, description="Accepted, ignored."
    )
    apply_language_text_normalization: bool | None = Field(
        default=None, description="Accepted, ignored."
    )

    @field_validator("text")
    @classmethod
    def _speakable(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain something to say")
        return value

    @property
    def speed(self) -> float:
        settings = self.voice_settings
        return settings.speed if settings is not None and settings.speed is not None else 1.0


class ElevenLabsCharacterAlignment(BaseModel):
    characters: list[str]
    character_start_times_seconds: list[float]
    character_end_times_seconds: list[float]


class ElevenLabsAudioWithTimestamps(BaseModel):
    audio_base64: str
    alignment: ElevenLabsCharacterAlignment | None = Field(
        description="Every character of the text as given, with when it is spoken: each "
        "word's characters share the word's aligned span equally; the spaces and punctuation "
        "between two words share the gap between them."
    )
    normalized_alignment: ElevenLabsCharacterAlignment | None = Field(
        description="The same as `alignment`: the characters of the text as written (the "
        'words a normalized "$250" is read as share its characters\' times).'
    )


class ElevenLabsSoundGenerationBody(RequestModel):
    text: str = Field(
        min_length=1, max_length=MAX_PROMPT_CHARACTERS, description="The prompt, 1 to 500."
    )
    duration_seconds: float | None = Field(
        default=None,
        ge=0.5,
        le=30,
        description="0.5 to 30, rounded to the nearest whole second (at least 1): the native "
        "generator makes whole seconds. Default 5.",
    )
    prompt_influence: float | None = Field(
        default=None, ge=0, le=1, description="Accepted, ignored."
    )
    loop: bool | None = Field(default=None, description="Accepted, ignored.")
    model_id: str | None = Field(default=None, max_length=MAX_ID, description="Ignored.")


class ElevenLabsSpeechToTextForm(FormModel):
    """The multipart fields of POST /v1/speech-to-text besides `file` (form values are text:
    booleans and numbers are read from it)."""

    model_id: str | None = Field(default=None, max_length=MAX_ID, description="Ignored.")
    language_code: str | None = Field(
        default=None,
        min_length=2,
        max_length=35,
        description="ISO 639-1 or 639-3 (or BCP-47); absent: detected.",
    )
    tag_audio_events: FormBool | None = Field(
        default=None, description="Accepted, ignored: no audio events are tagged."
    )
    num_speakers: FormInt | None = Field(default=None, ge=1, le=32)
    timestamps_granularity: Literal["none", "word", "character"] = "word"
    diarize: FormBool = False
    diarization_threshold: FormFloat | None = Field(
        default=None, ge=0, le=1, description="Ignored."
    )
    file_format: Literal["pcm_s16le_16", "other"] | None = Field(
        default=None, description="`other` (any file FFmpeg reads); `pcm_s16le_16` is refused."
    )
    cloud_storage_url: str | None = Field(
        default=None, max_length=2048, description="An https URL of the audio, instead of `file`."
    )
    source_url: str | None = Field(
        default=None, max_length=2048, description="An https URL of the audio, instead of `file`."
    )
    secondary_language_codes: list[str] | None = Field(default=None, description="Ignored.")
    numbers_format: str | None = Field(default=None, max_length=32, description="Ignored.")
    transcript_edit: str | None = Field(default=None, max_length=32, description="Ignored.")
    temperature: FormFloat | None = Field(default=None, ge=0, le=2, description="Ignored.")
    seed: FormInt | None = Field(default=None, ge=0, le=MAX_SEED, description="Ignored.")
    no_verbatim: FormBool | None = Field(default=None, description="Ignored.")
    use_speaker_library: FormBool | None = Field(default=None, description="Ignored.")
    detect_speaker_roles: FormBool | None = Field(default=None, description="Ignored.")
    keyterms: list[str] | None = Field(default=None, description="Ignored.")
    entity_redaction_mode: str | None = Field(default=None, max_length=32, description="Ignored.")
    # The SDK always sends these three as JSON, `null` when unset.
    webhook_metadata: str | None = Field(default=None, max_length=4096, description="Ignored.")
    entity_detection: str | None = Field(default=None, max_length=4096, description="Refused.")
    entity_redaction: str | None = Field(default=None, max_length=4096, description="Refused.")
    additional_formats: str | None = Field(default=None, max_length=4096, description="Refused.")
    webhook: FormBool | None = Field(default=None, description="Refused when true.")
    webhook_id: str | None = Field(default=None, max_length=MAX_ID, description="Refused.")
    use_multi_channel: FormBool | None = Field(default=None, description="Refused when true.")
    multichannel_output_style: str | None = Field(
        default=None, max_length=32, description="Ignored."
    )

    @field_validator("secondary_language_codes", "keyterms")
    @classmethod
    def _short_list(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (len(value) > 100 or any(len(item) > 100 for item in value)):
            raise ValueError("at most 100 items of at most 100 characters")
        return value

    @field_validator("entity_detection", "entity_redaction", "additional_formats")
    @classmethod
    def _json_null(cls, value: str | None) -> str | None:
        refuse_if_set(None if value in (None, "", "null", "[]") else value, "this field")
        return value

    @field_validator("webhook", "webhook_id", "use_multi_channel")
    @classmethod
    def _not_async(cls, value: Any) -> Any:
        return refuse_if_set(value, "this field")

    @field_validator("file_format")
    @classmethod
    def _encoded_files(cls, value: str | None) -> str | None:
        if value == "pcm_s16le_16":
            raise ValueError("raw PCM input is not supported: send a file with a header (WAV)")
        return value


class ElevenLabsSpeechToTextCharacter(BaseModel):
    text: str
    start: float | None = None
    end: float | None = None


class ElevenLabsSpeechToTextWord(BaseModel):
    text: str
    start: float | None = Field(default=None, description="Seconds; absent with `none`.")
    end: float | None = None
    type: Literal["word", "spacing"]
    speaker_id: str | None = Field(default=None, description="With `diarize`: `speaker_0`, ...")
    logprob: float = Field(description="0: the recognizer's word probabilities are not kept.")
    characters: list[ElevenLabsSpeechToTextCharacter] | None = Field(
        default=None, description="With `timestamps_granularity: character`."
    )


class ElevenLabsSpeechToTextChunk(BaseModel):
    language_code: str = Field(description="ISO 639-3 (`eng`), as ElevenLabs answers.")
    language_probability: float
    text: str
    words: list[ElevenLabsSpeechToTextWord]
    transcription_id: str = Field(description="The native job's id.")
    audio_duration_secs: float


class ElevenLabsVoiceSettingsOut(BaseModel):
    stability: float = 0.5
    similarity_boost: float = 0.75
    style: float = 0.0
    use_speaker_boost: bool = True
    speed: float = 1.0


class ElevenLabsVerifiedLanguage(BaseModel):
    language: str
    model_id: str
    accent: str | None = None
    locale: str | None = None


class ElevenLabsVoice(BaseModel):
    voice_id: str
    name: str
    category: Literal["premade"] = "premade"
    labels: dict[str, str]
    description: str
    preview_url: str
    available_for_tiers: list[str] = []
    settings: ElevenLabsVoiceSettingsOut | None = None
    high_quality_base_model_ids: list[str]
    verified_languages: list[ElevenLabsVerifiedLanguage]
    is_owner: bool = False
    is_legacy: bool = False
    created_at_unix: int


class ElevenLabsVoicesResponse(BaseModel):
    voices: list[ElevenLabsVoice]


class ElevenLabsVoicesV2Response(BaseModel):
    voices: list[ElevenLabsVoice]
    has_more: bool
    total_count: int
    next_page_token: str | None = None


class ElevenLabsLanguage(BaseModel):
    language_id: str
    name: str


class ElevenLabsModelRates(BaseModel):
    character_cost_multiplier: float = 1.0


class ElevenLabsModel(BaseModel):
    model_id: str
    name: str
    description: str
    can_be_finetuned: bool = False
    can_do_text_to_speech: bool
    can_do_voice_conversion: bool
    can_use_style: bool = False
    can_use_speaker_boost: bool = False
    serves_pro_voices: bool = False
    token_cost_factor: float = 1.0
    requires_alpha_access: bool = False
    max_characters_request_free_user: int
    max_characters_request_subscribed_user: int
    maximum_text_length_per_request: int
    languages: list[ElevenLabsLanguage]
    model_rates: ElevenLabsModelRates = ElevenLabsModelRates()


class ElevenLabsPrice(BaseModel):
    amount: str = "0"
    currency: str = "usd"


class ElevenLabsSubscription(BaseModel):
    tier: str = Field(description="The key's environment: `sandbox` or `production`.")
    character_count: int = Field(description="0: credits have no billing period here.")
    character_limit: int = Field(
        description="The credit balance (credits available now; TTS costs 1 a character)."
    )
    max_character_limit_extension: int = 0
    max_credit_limit_extension: int = 0
    can_extend_character_limit: bool = False
    allowed_to_extend_character_limit: bool = False
    next_character_count_reset_unix: int | None = None
    voice_slots_used: int = 0
    professional_voice_slots_used: int = 0
    professional_voice_slots_used_in_workspace: int = 0
    voice_limit: int = 0
    voice_add_edit_counter: int = 0
    professional_voice_limit: int = 0
    can_extend_voice_limit: bool = False
    can_use_instant_voice_cloning: bool = False
    can_use_professional_voice_cloning: bool = False
    current_overage: ElevenLabsPrice = ElevenLabsPrice()
    status: Literal["active"] = "active"
    open_invoices: list[dict[str, Any]] = []
    has_open_invoices: bool = False


class ElevenLabsUser(BaseModel):
    """ElevenLabs' user (GET /v1/user) for the key's account: the account is the user and its
    workspace; the subscription is the key's, as GET /v1/user/subscription answers it."""

    user_id: str = Field(description="The account's id.")
    workspace_id: str = Field(description="The account's id: an account is its own workspace.")
    subscription: ElevenLabsSubscription
    first_name: str = Field(description="The account's name.")
    created_at: int = Field(description="When the account was made, Unix seconds.")
    is_new_user: bool = False
    can_use_delayed_payment_methods: bool = False
    is_onboarding_completed: bool = True
    is_onboarding_checklist_completed: bool = True
    seat_type: Literal["workspace_admin"] = "workspace_admin"


M = TypeVar("M", bound=BaseModel)


def field_path(loc: tuple[int | str, ...]) -> str:
    """A field's place as ElevenLabs names it: `rules[2].phoneme`."""
    name = ""
    for part in loc:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name


def native_request(
    model: type[M], fields: dict[str, Any], params: Mapping[str, str] | None = None
) -> M:
    """A native request built from the ElevenLabs one: a bound the native API has and this
    surface did not check already is 422 naming the field at fault (`params` maps the native
    top-level field names to the ElevenLabs ones: `speed` is `voice_settings.speed`)."""
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = tuple(error["loc"])
        if loc and params and str(loc[0]) in params:
            loc = (params[str(loc[0])], *loc[1:])
        param = field_path(loc)
        raise InvalidField(f"{param}: {error['msg']}", param=param or None) from exc
