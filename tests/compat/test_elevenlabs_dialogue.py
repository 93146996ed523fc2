"""ElevenLabs' text to dialogue through the official SDK against a live server: three voices
taking turns (transcribed back through the SDK's speech to text, told apart by diarization
in the order they speak), streamed, with timestamps and voice segments, the credits, and the
errors ElevenLabs' clients expect."""

from __future__ import annotations

import base64

import httpx
import pytest
from elevenlabs import DialogueInput
from elevenlabs.core.api_error import ApiError
from elevenlabs.errors import UnprocessableEntityError

from soundstage.core.db import Database
from tests.support.audio_fixtures import word_error_rate
from tests.support.elevenlabs import ONCE, decode_output, sdk, transcribe
from tests.support.factories import Customer, create_customer

# A man (Piper), a woman (Flite) and a diphone man (Festival); the woman named by the
# ElevenLabs premade id the catalog reads her with would do as well.
LINES = [
    ("voice_joe", "Good morning. I would like to book a table for dinner tonight."),
    ("voice_sarah", "Of course. How many people will be joining you this evening?"),
    ("voice_kal", "There will be four of us, and we would like a quiet corner."),
]


@pytest.fixture(scope="module")
def rich(db: Database) -> Customer:
    return create_customer(db, credits_each=100_000)


def inputs(lines: list[tuple[str, str]]) -> list[DialogueInput]:
    return [DialogueInput(text=text, voice_id=voice) for voice, text in lines]


def balance(live_url: str, customer: Customer) -> int:
    answer = httpx.get(f"{live_url}/api/v1/credits", headers=customer.auth(), timeout=30).json()
    assert answer["reserved"] == 0
    return int(answer["balance"])


@pytest.mark.measures
def test_three_voices_are_heard_in_turn(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=100_000)
    client = sdk(live_url, customer.sandbox_key)
    answer = client.text_to_dialogue.convert_with_timestamps(
        inputs=inputs(LINES * 2),
        output_format="wav_16000",
        model_id="eleven_v3",
        settings={"stability": 0.5},
        request_options=ONCE,
    )
    characters = 2 * sum(len(text) for _, text in LINES)
    assert balance(live_url, customer) == 100_000 - characters
    transcript = transcribe(
        client,
        file=("dialogue.wav", base64.b64decode(answer.audio_base_64), "audio/wav"),
        diarize=True,
        num_speakers=3,
    )
    said = " ".join(text for _, text in LINES * 2)
    assert word_error_rate(said, transcript.text) <= 0.15, transcript.text
    words = [word for word in transcript.words if word.type == "word"]
    # Each turn's speaker: the most of the words heard within its voice segment (by their
    # middle), whatever the transcriber made of a turn's first word.
    speakers = []
    for segment in answer.voice_segments:
        ids = [
            word.speaker_id
            for word in words
            if segment.start_time_seconds
            <= ((word.start or 0.0) + (word.end or 0.0)) / 2
            <= segment.end_time_seconds
        ]
        assert len(ids) >= 5, (segment, transcript.text)
        speakers.append(max(set(ids), key=ids.count))
    # Three voices told apart, each voice's second turn heard as its first.
    assert len(set(speakers[:3])) == 3, speakers
    assert speakers[3:] == speakers[:3], speakers


def test_stream_and_whole_are_the_same_dialogue(live_url: str, rich: Customer) -> None:
    client = sdk(live_url, rich.sandbox_key)
    lines = [("voice_kal", "Are you there?"), ("voice_sarah", "Yes, right here.")]
    chunks = list(
        client.text_to_dialogue.stream(
            inputs=inputs(lines), output_format="mp3_44100_128", request_options=ONCE
        )
    )
    streamed = decode_output(b"".join(chunks), "mp3_44100_128")
    whole = b"".join(
        client.text_to_dialogue.convert(
            inputs=inputs(lines), output_format="wav_24000", request_options=ONCE
        )
    )
    stored = decode_output(whole, "wav_24000")
    assert stored.sample_rate == 24_000
    # The same reading (MP3 may carry up to ~70 ms of encoder delay and padding more).
    assert streamed.seconds == pytest.approx(stored.seconds, abs=0.1)
    assert stored.seconds > 1.5


def test_with_timestamps_gives_every_character_and_each_voice(
    live_url: str, rich: Customer
) -> None:
    client = sdk(live_url, rich.sandbox_key)
    lines = [("voice_kal", "One two three."), ("voice_sarah", "Four five six.")]
    answer = client.text_to_dialogue.convert_with_timestamps(
        inputs=inputs(lines), output_format="wav_16000", request_options=ONCE
    )
    audio = decode_output(base64.b64decode(answer.audio_base_64), "wav_16000")
    alignment = answer.alignment
    assert alignment is not None
    assert "".join(alignment.characters) == "One two three.Four five six."
    starts = alignment.character_start_times_seconds
    assert starts == sorted(starts)
    assert alignment.character_end_times_seconds[-1] <= audio.seconds + 0.05
    segments = answer.voice_segments
    assert [(s.voice_id, s.dialogue_input_index) for s in segments] == [
        ("voice_kal", 0),
        ("voice_sarah", 1),
    ]
    assert [(s.character_start_index, s.character_end_index) for s in segments] == [
        (0, 14),
        (14, 28),
    ]
    first, second = segments
    # The second voice starts after the first stops, by the 300 ms pause.
    assert second.start_time_seconds - first.end_time_seconds == pytest.approx(0.3, abs=0.03)
    # "Four" is said within the second voice's segment.
    four = alignment.characters.index("F")
    assert first.end_time_seconds < starts[four] < second.end_time_seconds


def test_errors_are_answered_as_elevenlabs_does(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=1_000)
    client = sdk(live_url, customer.sandbox_key)
    unknown = [("voice_kal", "Hello."), ("voice_nobody", "Hello.")]
    with pytest.raises(ApiError) as caught:
        b"".join(client.text_to_dialogue.convert(inputs=inputs(unknown), request_options=ONCE))
    assert caught.value.status_code == 404
    assert caught.value.body["detail"]["status"] == "voice_not_found"
    with pytest.raises(UnprocessableEntityError):
        b"".join(
            client.text_to_dialogue.convert(
                inputs=inputs([("voice_kal", "a")] * 51), request_options=ONCE
            )
        )
    with pytest.raises(ApiError) as caught:
        b"".join(
            client.text_to_dialogue.convert(
                inputs=inputs([("voice_kal", "a" * 900)] * 2), request_options=ONCE
            )
        )
    assert caught.value.status_code == 402
    assert balance(live_url, customer) == 1_000


def test_stream_with_timestamps_ends_with_the_alignment(live_url: str, rich: Customer) -> None:
    client = sdk(live_url, rich.sandbox_key)
    lines = [("voice_kal", "One two three."), ("voice_sarah", "Four five six.")]
    chunks = list(
        client.text_to_dialogue.stream_with_timestamps(
            inputs=inputs(lines), output_format="pcm_16000", request_options=ONCE
        )
    )
    audio = b"".join(base64.b64decode(chunk.audio_base_64) for chunk in chunks)
    seconds = decode_output(audio, "pcm_16000").seconds
    assert seconds > 1.0
    *pieces, last = chunks
    assert all(piece.alignment is None and piece.voice_segments == [] for piece in pieces)
    assert last.audio_base_64 == ""
    assert last.alignment is not None
    assert "".join(last.alignment.characters) == "One two three.Four five six."
    assert last.alignment.character_end_times_seconds[-1] <= seconds + 0.05
    assert [s.dialogue_input_index for s in last.voice_segments] == [0, 1]
