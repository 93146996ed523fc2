"""The speech-to-text job: fetch, measure and price the input, then decode it window by window
(bounded memory for hours of audio), transcribe each window, find the speakers, and assemble
the transcript with words, speakers and subtitle segments."""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from soundstage.config import Settings
from soundstage.credits.rates import Operation
from soundstage.engines.speakers.diarize import Diarizer, SpeakerTurn, assign_speakers
from soundstage.engines.transcribers import sphinx
from soundstage.engines.transcribers.base import (
    Segment,
    Task,
    Word,
    bcp47_language,
    whisper_language,
)
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.jobs import handlers, inputs, preload
from soundstage.jobs.handlers import InputRule, JobContext, JobOutcome
from soundstage.media.audio import iter_decode
from soundstage.media.input_limits import within_duration
from soundstage.realtime.live import register_lost_kind
from soundstage.speech import longform
from soundstage.speech.stt import cues
from soundstage.speech.stt.schemas import (
    ModelSegment,
    Speaker,
    SpeakerSegment,
    SttResult,
    SttWord,
    TranscriptSegment,
)

KIND = "stt"
# A realtime transcription session (speech/stt/realtime.py): run by its API
# process's slot, never queued; a worker given one (its API process died) fails it.
REALTIME_KIND: Final = "stt_realtime"
PARAM: Final = "audio_url"
OPERATION: Final = "speech-to-text"
SAMPLE_RATE: Final = 16_000
# Windows of at most this long are transcribed at once (about 38 MB of 16 kHz float32).
WINDOW_SECONDS: Final = 600.0
_BLOCK_FRAMES: Final = 1 << 18


class SttJob(inputs.KeptInputs):
    """The job's request: the endpoint's SttRequest with its language settled (`auto` or a
    supported tag), and the kept input when it was submitted asynchronously."""

    audio_url: str
    language: str
    diarize: bool
    timestamps: bool
    num_speakers: int | None = None
    # Not on the native API (the OpenAI-compatible one sets them): "translate" writes the
    # speech in English (Whisper's own translation); `model_segments` keeps the model's
    # segments with their decoding figures in the result.
    task: Task = "transcribe"
    model_segments: bool = False


def transcribe_audio(ctx: JobContext[SttJob]) -> JobOutcome[SttResult]:
    request = ctx.request
    limit_ms = ctx.settings.stt.max_duration_ms
    # Priced from the container's duration before any work; the charge is the decoded one,
    # held before each window is transcribed (the header may understate the length).
    opened = ctx.open_audio_input(
        request.audio_url,
        InputRule(PARAM, limit_ms, OPERATION, Operation.STT),
        stage="transcribing",
        block_frames=None,
        kept_media_id=inputs.kept_media_id(ctx, 0),
    )
    source, info = opened.path, opened.info

    transcriber = get_transcriber()
    language: str | None = None if request.language == "auto" else request.language
    detected_probability: float | None = None
    # What the transcript is in, as the model names it ("en" for en-GB): the first window's.
    transcribed: str | None = None
    diarizer = Diarizer() if request.diarize else None
    # Words are timed when asked for, and to give each word its speaker.
    with_words = request.timestamps or request.diarize
    segments: list[Segment] = []
    total = max(info.duration_ms, 1)
    blocks = within_duration(
        iter_decode(source, sample_rate=SAMPLE_RATE, channels=1, block_frames=_BLOCK_FRAMES),
        limit_ms,
        param=PARAM,
        operation=OPERATION,
    )
    duration_ms = price = 0
    for window in longform.windows(blocks, max_seconds=WINDOW_SECONDS):
        duration_ms = window.offset_ms + window.audio.duration_ms
        price = ctx.price_of_decoded(Operation.STT, duration_ms)
        if window.audio.frames == 0:
            continue
        share = window.audio.duration_ms / total

        def report(done: float, start: int = window.offset_ms, share: float = share) -> None:
            ctx.progress(0.02 + 0.9 * (start / total + done * share), "transcribing")

        part = transcriber.transcribe(
            window.audio,
            language=language,
            word_timestamps=with_words,
            progress=report,
            task=request.task,
        )
        if language is None:
            # Detected on the first window; later windows keep it.
            language, detected_probability = part.language, part.language_probability
        transcribed = transcribed or part.language
        timed = part.segments
        if request.timestamps and request.task == "transcribe":
            # Whisper's word times drift around pauses: English words are force-aligned (not
            # a translation's: its words are not those spoken).
            timed = tuple(sphinx.refine_segments(window.audio, timed, part.language))
        segments.extend(_shifted(segment, window.offset_ms) for segment in timed)
        if diarizer is not None:
            ctx.check_cancelled()
            diarizer.add(window.audio, window.offset_ms)

    turns: list[SpeakerTurn] = []
    if diarizer is not None:
        ctx.progress(0.93, "diarizing")
        turns = diarizer.finish(num_speakers=request.num_speakers)
    ctx.progress(0.97, "assembling")
    if transcribed is None:  # no audio at all
        asked = request.language
        transcribed = "en" if asked == "auto" else bcp47_language(whisper_language(asked))
    result = _result(
        segments,
        turns,
        language=transcribed,
        language_probability=detected_probability,
        duration_ms=duration_ms,
        timestamps=request.timestamps,
        diarize=request.diarize,
    )
    if request.model_segments:
        result.model_segments = [_model_segment(segment) for segment in segments]
    return JobOutcome(result, credits_used=price)


def _model_segment(segment: Segment) -> ModelSegment:
    """A segment with the model's figures; a model that reports none gets Whisper's neutral
    values (no tokens, temperature 0, log probability 0, compression 1, no-speech 0)."""
    details = segment.details
    return ModelSegment(
        text=segment.text,
        start_ms=segment.start_ms,
        end_ms=segment.end_ms,
        seek=details.seek if details else segment.start_ms // 10,
        tokens=list(details.tokens) if details else [],
        temperature=details.temperature if details else 0.0,
        avg_logprob=round(details.avg_logprob, 6) if details else 0.0,
        compression_ratio=round(details.compression_ratio, 6) if details else 1.0,
        no_speech_prob=round(details.no_speech_prob, 6) if details else 0.0,
    )


def _shifted(segment: Segment, offset_ms: int) -> Segment:
    if offset_ms == 0:
        return segment
    return replace(
        segment,
        start_ms=segment.start_ms + offset_ms,
        end_ms=segment.end_ms + offset_ms,
        words=tuple(
            replace(w, start_ms=w.start_ms + offset_ms, end_ms=w.end_ms + offset_ms)
            for w in segment.words
        ),
        details=segment.details
        and replace(segment.details, seek=segment.details.seek + offset_ms // 10),
    )


def _result(
    segments: list[Segment],
    turns: list[SpeakerTurn],
    *,
    language: str,
    language_probability: float | None,
    duration_ms: int,
    timestamps: bool,
    diarize: bool,
) -> SttResult:
    words: list[Word] = [word for segment in segments for word in segment.words]
    speakers_of_words = assign_speakers(words, turns) if diarize else [None] * len(words)
    phrases = cues.from_words(words, speakers_of_words) if words else cues.from_segments(segments)
    transcript = " ".join(segment.text.strip() for segment in segments if segment.text.strip())
    result = SttResult(
        transcript=transcript,
        duration_ms=duration_ms,
        language=language,
        words=[],
        speakers=[],
        segments=[TranscriptSegment.model_validate(phrase.as_dict()) for phrase in phrases],
    )
    if language_probability is not None:
        result.language_probability = round(language_probability, 4)
    if timestamps:
        result.words = [
            _timed(word, speaker) for word, speaker in zip(words, speakers_of_words, strict=True)
        ]
    if diarize:
        result.speakers = _speakers(turns)
    return result


def _timed(word: Word, speaker: str | None) -> SttWord:
    """A word of the result; `speaker` only set (and stored) when there is one."""
    timed = SttWord(word=word.word.strip(), start_ms=word.start_ms, end_ms=word.end_ms)
    if speaker:
        timed.speaker = speaker
    return timed


def _speakers(turns: list[SpeakerTurn]) -> list[Speaker]:
    by_speaker: dict[str, list[SpeakerSegment]] = {}
    for turn in turns:
        by_speaker.setdefault(turn.speaker, []).append(
            SpeakerSegment(start_ms=turn.start_ms, end_ms=turn.end_ms)
        )
    return [Speaker(speaker=name, segments=spans) for name, spans in by_speaker.items()]


def register() -> None:
    """Declare this feature's job kinds (called by the composition root, soundstage.app_tasks)."""
    register_lost_kind(REALTIME_KIND)
    handlers.declare(KIND, transcribe_audio, request=SttJob, result=SttResult)
    preload.declare("speech-to-text model", _load_default_model)


def _load_default_model(settings: Settings) -> None:
    get_transcriber(settings=settings)  # stt.default_model
