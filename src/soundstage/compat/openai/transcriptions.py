"""POST /v1/audio/transcriptions and /v1/audio/translations, mapped onto the native
speech-to-text job: the upload is kept as the caller's media (as POST /api/v1/uploads does)
and transcribed from its URL, at the native price (250 credits a minute, per started second),
charged once the transcript is made. Its answer is then written in the format asked for.

Accepted and ignored: `prompt` and `temperature` (the service decodes with its own settings:
beam search at temperature 0, each window prompted with the text before it), `include[]`
(no log probabilities), `chunking_strategy` (the audio is always cut at silences),
`known_speaker_names[]` / `known_speaker_references[]` (speakers are labelled A, B...),
`keywords[]` and `languages[]` (`language` gives the language; absent, it is detected)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, Literal

import pycountry
from fastapi import Request
from pydantic import ValidationError
from starlette.datastructures import UploadFile

from soundstage.compat import common
from soundstage.compat.openai import service as catalog
from soundstage.compat.openai.schemas import (
    DiarizedSegment,
    DurationUsage,
    Transcription,
    TranscriptionDiarized,
    TranscriptionForm,
    TranscriptionSegment,
    TranscriptionVerbose,
    TranscriptionWord,
)
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import (
    AppError,
    InvalidField,
    ParameterMissing,
    ParameterUnknown,
)
from soundstage.core.principal import Principal
from soundstage.speech.stt import cues
from soundstage.speech.stt import service as stt
from soundstage.speech.stt.schemas import SttRequest

Task = Literal["transcribe", "translate"]
# Form fields that OpenAI's clients send with brackets (`timestamp_granularities[]`), and the
# list fields of the form.
_LIST_FIELDS: Final = frozenset(
    {
        "timestamp_granularities",
        "include",
        "known_speaker_names",
        "known_speaker_references",
        "keywords",
        "languages",
    }
)
# What a translation's form takes (OpenAI's: no language, granularities or streaming).
TRANSLATION_FIELDS: Final = frozenset({"file", "model", "prompt", "response_format", "temperature"})
_MAX_FIELDS: Final = 32
_BOOLEANS: Final = {"true": True, "false": False}
# Whisper's names of languages whose ISO 639 name differs.
_WHISPER_NAMES: Final = {
    "el": "greek",
    "ht": "haitian creole",
    "km": "khmer",
    "my": "myanmar",
    "nn": "nynorsk",
    "pa": "punjabi",
    "ps": "pashto",
    "yue": "cantonese",
    "es": "spanish",
}


@dataclass(frozen=True)
class Upload:
    file: UploadFile
    form: TranscriptionForm


async def read_form(request: Request, task: Task) -> Upload:
    """The multipart form as OpenAI's SDK sends it: `file` and the fields of
    TranscriptionForm (list fields repeated, with or without `[]`). 422 naming the field
    for a missing, unknown or invalid one."""
    # Starlette refuses a form over these counts, or unreadable, with a 400 (the app answers
    # it as 400 `malformed_request`).
    form = await request.form(max_files=1, max_fields=_MAX_FIELDS)
    upload = form.get("file")
    fields: dict[str, Any] = {}
    for key, value in form.multi_items():
        name = key.removesuffix("[]")
        if name == "file":
            continue
        if task == "translate" and name not in TRANSLATION_FIELDS:
            raise ParameterUnknown(f"{name}: Unknown field for a translation.", param=name)
        if isinstance(value, UploadFile):
            raise InvalidField(f"{name}: must be text, not a file.", param=name)
        if name in _LIST_FIELDS:
            fields.setdefault(name, []).append(value)
        elif name in fields:
            raise InvalidField(f"{name}: given more than once.", param=name)
        elif name == "stream":
            if value.lower() not in _BOOLEANS:
                raise InvalidField("stream: must be true or false.", param="stream")
            fields[name] = _BOOLEANS[value.lower()]
        else:
            fields[name] = value
    if not isinstance(upload, UploadFile):
        if upload is None:
            raise ParameterMissing("file: Field required (the audio file).", param="file")
        raise InvalidField("file: must be a file (multipart upload).", param="file")
    try:
        parsed = TranscriptionForm.model_validate(fields)
    except ValidationError as exc:
        raise _form_error(exc) from exc
    if task == "translate" and parsed.response_format == "diarized_json":
        raise InvalidField(
            "response_format: diarized_json is for transcriptions.", param="response_format"
        )
    catalog.model(parsed.model, "transcription")
    return Upload(upload, parsed)


def _form_error(exc: ValidationError) -> AppError:
    first = exc.errors()[0]
    param = str(first["loc"][0]) if first["loc"] else None
    kind = first["type"]
    if kind == "missing":
        return ParameterMissing(f"{param}: Field required.", param=param)
    if kind == "extra_forbidden":
        return ParameterUnknown(f"{param}: Unknown field.", param=param)
    return InvalidField(f"{param}: {first['msg']}.", param=param)


@dataclass(frozen=True)
class Answer:
    """A transcript in the format asked for: JSON (`body`), or text with its media type."""

    body: dict[str, Any] | None = None
    text: str | None = None
    media_type: str = "text/plain"
    # With `stream`: the server-sent events, each a JSON object.
    events: list[dict[str, Any]] | None = None


async def transcribe(
    db: Database, settings: Settings, principal: Principal, upload: Upload, task: Task
) -> Answer:
    form = upload.form
    fmt = form.response_format
    granularities = set(form.timestamp_granularities)
    words = fmt == "verbose_json" and "word" in granularities
    diarize = fmt == "diarized_json"
    url = await common.kept_upload(db, settings, principal, upload.file, param="file")
    body = SttRequest(
        audio_url=url,
        language="auto" if task == "translate" or form.language is None else form.language,
        diarize=diarize,
        timestamps=words,
    )
    done = await stt.transcribe_detailed(db, settings, principal, body, task=task)
    result = done.response
    text = result.transcript
    usage = DurationUsage(seconds=round(result.duration_ms / 1000, 3))
    phrases = [cues.Phrase(s.text, s.start_ms, s.end_ms, s.speaker) for s in result.segments]
    if form.stream:
        return Answer(events=_events(text, _diarized(phrases) if diarize else None))
    if fmt == "text":
        return Answer(text=text + "\n")
    if fmt == "srt":
        return Answer(text=cues.to_srt(_unlabelled(phrases)), media_type="application/x-subrip")
    if fmt == "vtt":
        return Answer(text=cues.to_vtt(_unlabelled(phrases)), media_type="text/vtt")
    if fmt == "verbose_json":
        segments = None
        if not granularities or "segment" in granularities:
            segments = [
                TranscriptionSegment(
                    id=index,
                    seek=s.seek,
                    start=_seconds(s.start_ms),
                    end=_seconds(s.end_ms),
                    # Whisper's segments start with a space, as OpenAI's do.
                    text=" " + s.text.strip(),
                    tokens=s.tokens,
                    temperature=s.temperature,
                    avg_logprob=s.avg_logprob,
                    compression_ratio=s.compression_ratio,
                    no_speech_prob=s.no_speech_prob,
                )
                for index, s in enumerate(done.model_segments)
            ]
        verbose = TranscriptionVerbose(
            task=task,
            language="english" if task == "translate" else language_name(result.language),
            duration=_seconds(result.duration_ms),
            text=text,
            segments=segments,
            words=[
                TranscriptionWord(word=w.word, start=_seconds(w.start_ms), end=_seconds(w.end_ms))
                for w in result.words
            ]
            if words
            else None,
            usage=usage,
        )
        return Answer(body=verbose.model_dump(exclude_none=True))
    if diarize:
        diarized = TranscriptionDiarized(
            duration=_seconds(result.duration_ms),
            text=text,
            segments=_diarized(phrases),
            usage=usage,
        )
        return Answer(body=diarized.model_dump())
    return Answer(body=Transcription(text=text, usage=usage).model_dump())


def _seconds(ms: int) -> float:
    return round(ms / 1000, 3)


def _unlabelled(phrases: list[cues.Phrase]) -> list[cues.Phrase]:
    return [cues.Phrase(p.text, p.start_ms, p.end_ms) for p in phrases]


def _diarized(phrases: list[cues.Phrase]) -> list[DiarizedSegment]:
    """The phrases with OpenAI's speaker labels: `A`, `B`... in order of first speech (the
    native `speaker_1`, `speaker_2`...; a phrase without one is `A`'s)."""
    labels: dict[str, str] = {}
    segments = []
    for index, phrase in enumerate(phrases):
        native = phrase.speaker or "speaker_1"
        label = labels.setdefault(native, _label(len(labels)))
        segments.append(
            DiarizedSegment(
                id=f"seg_{index}",
                start=_seconds(phrase.start_ms),
                end=_seconds(phrase.end_ms),
                text=phrase.text,
                speaker=label,
            )
        )
    return segments


def _label(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _events(text: str, diarized: list[DiarizedSegment] | None) -> list[dict[str, Any]]:
    """`transcript.text.delta` events (a phrase each; with diarized_json each followed by
    its `transcript.text.segment`), then `transcript.text.done` with the whole text."""
    events: list[dict[str, Any]] = []
    if diarized is not None:
        for index, segment in enumerate(diarized):
            delta = segment.text if index == 0 else " " + segment.text
            events.append(
                {"type": "transcript.text.delta", "delta": delta, "segment_id": segment.id}
            )
            events.append(segment.model_dump())
    else:
        pieces = text.split(" ")
        # A delta per few words: what a client shows as it arrives.
        for start in range(0, len(pieces), 8):
            chunk = " ".join(pieces[start : start + 8])
            events.append(
                {"type": "transcript.text.delta", "delta": chunk if start == 0 else " " + chunk}
            )
    events.append({"type": "transcript.text.done", "text": text})
    return events


async def sse(events: list[dict[str, Any]]) -> AsyncIterator[bytes]:
    for event in events:
        yield f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode()


@cache
def language_name(tag: str) -> str:
    """OpenAI's name of a language, as Whisper writes it: English, lower case (`en` ->
    `english`, `pt-BR` -> `portuguese`); the tag itself when it has none."""
    code = tag.split("-")[0].lower()
    if code in _WHISPER_NAMES:
        return _WHISPER_NAMES[code]
    found = pycountry.languages.get(alpha_2=code) if len(code) == 2 else None
    found = found or pycountry.languages.get(alpha_3=code)
    if found is None:
        return tag.lower()
    # "Malay (macrolanguage)" -> "malay"
    return str(found.name).split(" (")[0].split(";")[0].lower()
