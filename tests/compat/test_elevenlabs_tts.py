"""ElevenLabs' text to speech through the official SDK against a live server: every
`output_format` exactly (codec and rate), streamed and whole, with character timestamps,
`voice_settings.speed`, the errors ElevenLabs' clients expect, and the credits charged."""

from __future__ import annotations

import base64
import typing
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from elevenlabs import PronunciationDictionaryVersionLocator
from elevenlabs.core.api_error import ApiError
from elevenlabs.errors import UnprocessableEntityError

from soundstage.core.db import Database
from tests.support.elevenlabs import ONCE, decode_output, sdk
from tests.support.factories import Customer, create_customer
from tests.support.pronunciation import alias_rule
from tests.support.streams import HANG_UP_TEXT, charges_of, read_until

VOICE = "voice_kal"  # Festival's diphone voice: the fastest engine
TEXT = "Hello there, my friend."
# Every name ElevenLabs lists for text to speech (the SDK's literal), WAV included.
FORMATS = [
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
    "wav_8000",
    "wav_16000",
    "wav_22050",
    "wav_24000",
    "wav_32000",
    "wav_44100",
    "wav_48000",
]


@pytest.fixture(scope="module")
def rich(db: Database) -> Customer:
    return create_customer(db, credits_each=100_000)


def native_seconds(live_url: str, customer: Customer, text: str) -> float:
    """The duration of the same text in the same voice through the native endpoint (the
    stored WAV's exact length): what every encoding of it must last."""
    answer = httpx.post(
        f"{live_url}/api/v1/speech/tts",
        json={"text": text, "voice_id": VOICE, "format": "wav"},
        headers=customer.auth(),
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    return float(answer.json()["duration_ms"]) / 1000


@pytest.fixture(scope="module")
def text_seconds(live_url: str, rich: Customer) -> float:
    return native_seconds(live_url, rich, TEXT)


def test_the_sdk_lists_every_format_tested() -> None:
    from elevenlabs.text_to_speech.types import TextToSpeechConvertRequestOutputFormat

    literal = typing.get_args(TextToSpeechConvertRequestOutputFormat)[0]
    assert sorted(typing.get_args(literal)) == sorted(FORMATS)


@pytest.mark.parametrize("output_format", FORMATS)
def test_convert_in_every_output_format(
    live_url: str, rich: Customer, text_seconds: float, output_format: str
) -> None:
    client = sdk(live_url, rich.sandbox_key)
    data = b"".join(
        client.text_to_speech.convert(
            VOICE,
            text=TEXT,
            output_format=output_format,
            model_id="eleven_multilingual_v2",
            request_options=ONCE,
        )
    )
    decoded = decode_output(data, output_format)
    assert decoded.sample_rate == int(output_format.split("_")[1])
    # As long as the native reading: a stream's MP3 carries no LAME tag (up to ~70 ms of
    # encoder delay and padding more), the other codecs none.
    assert decoded.seconds == pytest.approx(text_seconds, abs=0.08), decoded
    if output_format.startswith("mp3_"):
        assert decoded.bit_rate == int(output_format.split("_")[2]) * 1000


def test_stream_relays_the_audio_and_takes_every_sdk_field(live_url: str, rich: Customer) -> None:
    client = sdk(live_url, rich.sandbox_key)
    chunks = list(
        client.text_to_speech.stream(
            VOICE,
            text="The first sentence. And a second one follows it.",
            output_format="pcm_24000",
            model_id="eleven_flash_v2_5",
            language_code="en",
            voice_settings={"stability": 0.4, "similarity_boost": 0.8, "style": 0.1},  # type: ignore[arg-type]
            seed=7,
            previous_text="Before.",
            next_text="After.",
            previous_request_ids=["req_a"],
            next_request_ids=["req_b"],
            use_pvc_as_ivc=False,
            apply_text_normalization="auto",
            apply_language_text_normalization=False,
            enable_logging=True,
            optimize_streaming_latency=2,
            request_options=ONCE,
        )
    )
    assert len(chunks) > 1
    decoded = decode_output(b"".join(chunks), "pcm_24000")
    assert decoded.sample_rate == 24_000
    native = native_seconds(live_url, rich, "The first sentence. And a second one follows it.")
    assert decoded.seconds == pytest.approx(native, abs=0.02)


def _seconds(client_data: bytes, output_format: str) -> float:
    return decode_output(client_data, output_format).seconds


def test_voice_settings_speed_is_honoured(live_url: str, rich: Customer) -> None:
    client = sdk(live_url, rich.sandbox_key)

    def spoken(speed: float) -> float:
        data = b"".join(
            client.text_to_speech.convert(
                VOICE,
                text="Counting slowly: one, two, three, four, five, six.",
                output_format="pcm_16000",
                voice_settings={"speed": speed},  # type: ignore[arg-type]
                request_options=ONCE,
            )
        )
        return _seconds(data, "pcm_16000")

    slow, fast = spoken(0.7), spoken(1.2)
    # Durations go as 1 / speed, pauses included: 1.2 / 0.7.
    assert slow / fast == pytest.approx(1.2 / 0.7, rel=0.03), (slow, fast)
    with pytest.raises(UnprocessableEntityError):
        spoken(1.3)


def _assert_aligned(alignment: typing.Any, text: str, seconds: float) -> None:
    assert alignment.characters == list(text)
    starts = alignment.character_start_times_seconds
    ends = alignment.character_end_times_seconds
    assert len(starts) == len(ends) == len(text)
    assert starts == sorted(starts)
    assert ends == sorted(ends)
    assert all(start <= end for start, end in zip(starts, ends, strict=True))
    assert starts[0] >= 0
    assert ends[-1] <= seconds + 0.05
    # The words are spread over the audio, not heaped at one end.
    assert starts[text.index("friend")] > 0.3 * seconds


def test_convert_with_timestamps(live_url: str, rich: Customer) -> None:
    client = sdk(live_url, rich.sandbox_key)
    answer = client.text_to_speech.convert_with_timestamps(
        VOICE, text=TEXT, output_format="wav_22050", request_options=ONCE
    )
    audio = base64.b64decode(answer.audio_base_64)
    decoded = decode_output(audio, "wav_22050")
    assert decoded.sample_rate == 22_050
    _assert_aligned(answer.alignment, TEXT, decoded.seconds)
    assert answer.normalized_alignment == answer.alignment


def test_stream_with_timestamps_sends_the_alignment_last(live_url: str, rich: Customer) -> None:
    client = sdk(live_url, rich.sandbox_key)
    chunks = list(
        client.text_to_speech.stream_with_timestamps(
            VOICE, text=TEXT, output_format="mp3_44100_64", request_options=ONCE
        )
    )
    assert len(chunks) >= 2
    assert all(chunk.alignment is None for chunk in chunks[:-1])
    audio = b"".join(base64.b64decode(chunk.audio_base_64 or "") for chunk in chunks)
    decoded = decode_output(audio, "mp3_44100_64")
    _assert_aligned(chunks[-1].alignment, TEXT, decoded.seconds)
    assert chunks[-1].normalized_alignment == chunks[-1].alignment


def test_credits_drop_by_a_character_each(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=1000)
    client = sdk(live_url, customer.sandbox_key)
    before = client.user.subscription.get(request_options=ONCE)
    assert (before.character_limit, before.character_count) == (1000, 0)
    b"".join(client.text_to_speech.convert(VOICE, text=TEXT, request_options=ONCE))
    after = client.user.subscription.get(request_options=ONCE)
    assert after.character_limit == 1000 - len(TEXT)


def test_errors_in_elevenlabs_shape(live_url: str, customer: Customer) -> None:
    client = sdk(live_url, customer.sandbox_key)
    with pytest.raises(ApiError) as bad_key:
        b"".join(sdk(live_url, "sk_sandbox_nope").text_to_speech.convert(VOICE, text="Hi."))
    assert bad_key.value.status_code == 401
    assert bad_key.value.body["detail"]["status"] == "invalid_api_key"

    with pytest.raises(ApiError) as unknown:
        b"".join(client.text_to_speech.convert("voice_nobody", text="Hi.", request_options=ONCE))
    assert unknown.value.status_code == 404
    assert unknown.value.body["detail"]["status"] == "voice_not_found"

    calls: list[Callable[[], Iterator[bytes]]] = [
        lambda: client.text_to_speech.convert(VOICE, text="x" * 5001, request_options=ONCE),
        lambda: client.text_to_speech.convert(VOICE, text="   ", request_options=ONCE),
        lambda: client.text_to_speech.convert(
            VOICE,
            text="Hi.",
            output_format="mp3_96000_9",
            request_options=ONCE,
        ),
        # WAV cannot be streamed (its header needs the sizes).
        lambda: client.text_to_speech.stream(
            VOICE,
            text="Hi.",
            output_format="wav_16000",
            request_options=ONCE,
        ),
    ]
    for call in calls:
        with pytest.raises(UnprocessableEntityError) as refused:
            b"".join(call())
        assert refused.value.body["detail"]["status"] in ("parameter_invalid", "parameter_missing")
    # A dictionary that is not the account's.
    with pytest.raises(ApiError) as unknown:
        b"".join(
            client.text_to_speech.convert(
                VOICE,
                text="Hi.",
                pronunciation_dictionary_locators=[
                    PronunciationDictionaryVersionLocator(pronunciation_dictionary_id="d")
                ],
                request_options=ONCE,
            )
        )
    assert unknown.value.status_code == 404
    assert unknown.value.body["detail"]["status"] == "pronunciation_dictionary_not_found"

    # 1,000 credits do not buy 1,001 characters (nothing charged).
    with pytest.raises(ApiError) as poor:
        b"".join(client.text_to_speech.convert(VOICE, text="y" * 1001, request_options=ONCE))
    assert poor.value.status_code == 402
    balance = client.user.subscription.get(request_options=ONCE)
    assert balance.character_limit == 1000


@pytest.mark.parametrize("route", ["stream", "stream_with_timestamps"])
@pytest.mark.parametrize("share", [0.5, 0.9])
def test_a_client_that_hangs_up_pays_for_the_audio_it_was_sent(
    live_url: str, db: Database, route: str, share: float
) -> None:
    """Every byte of audio handed to a client is paid for, on both stream routes: reading
    `share` of the audio and closing the connection costs at least that share."""
    customer = create_customer(db, credits_each=1_000)
    client = sdk(live_url, customer.sandbox_key)
    # flite's awb: the same audio for the same text, every time.
    arguments: Any = {"text": HANG_UP_TEXT, "output_format": "pcm_16000", "request_options": ONCE}
    whole = len(b"".join(client.text_to_speech.stream("voice_alan", **arguments)))
    wanted = round(whole * share)
    if route == "stream":
        with client.text_to_speech.with_raw_response.stream("voice_alan", **arguments) as raw:
            job_id = raw.headers["soundstage-job-id"]
            read_until(raw.data, wanted)
    else:
        with client.text_to_speech.with_raw_response.stream_with_timestamps(
            "voice_alan", **arguments
        ) as timed:
            job_id = timed.headers["soundstage-job-id"]
            audio = (base64.b64decode(chunk.audio_base_64 or "") for chunk in timed.data)
            read_until(audio, wanted)
    charged = charges_of(live_url, customer, job_id)
    assert len(charged) == 1
    assert share * len(HANG_UP_TEXT) <= charged[0] <= len(HANG_UP_TEXT), (share, charged)


# An alias of 200 characters (SSML attributes and dictionary aliases hold at most 200).
ALIAS = ("the quick brown fox jumps over the lazy dog and " * 5)[:199] + "."


def _dictionary(live_url: str, customer: Customer) -> PronunciationDictionaryVersionLocator:
    """A dictionary of the customer's own (made through the native API) reading "zork" as
    ALIAS."""
    created = httpx.post(
        f"{live_url}/api/v1/pronunciation-dictionaries",
        json={"name": "Aliases", "rules": [alias_rule("zork", ALIAS)]},
        headers=customer.auth(),
        timeout=30,
    )
    assert created.status_code == 200, created.text
    return PronunciationDictionaryVersionLocator(
        pronunciation_dictionary_id=created.json()["id"],
        version_id=created.json()["latest_version_id"],
    )


def test_aliases_are_billed_as_spoken_and_bound_as_spoken(live_url: str, db: Database) -> None:
    """The surface honours SSML <sub> and pronunciation dictionaries: both are billed as
    spoken (the alias, not the text it replaces), and the spoken text is held to 5,000
    characters (422 naming `text`; 402 inside the bound, for the price alone)."""
    customer = create_customer(db, credits_each=4_000)
    client = sdk(live_url, customer.sandbox_key)

    def credits() -> int:
        return int(client.user.subscription.get(request_options=ONCE).character_limit)

    sub = "<speak>" + " ".join([f'<sub alias="{ALIAS}">abcdefghij</sub>'] * 3) + "</speak>"
    b"".join(client.text_to_speech.convert(VOICE, text=sub, request_options=ONCE))
    spent = len(" ".join([ALIAS] * 3))
    assert credits() == 4_000 - spent

    found = _dictionary(live_url, customer)
    text = " ".join(["zork"] * 3)
    b"".join(
        client.text_to_speech.convert(
            VOICE, text=text, pronunciation_dictionary_locators=[found], request_options=ONCE
        )
    )
    spent += len(" ".join([ALIAS] * 3))
    assert credits() == 4_000 - spent

    def ask(words: int) -> Iterator[bytes]:
        return client.text_to_speech.convert(
            VOICE,
            text=" ".join(["zork"] * words),
            pronunciation_dictionary_locators=[found],
            request_options=ONCE,
        )

    with pytest.raises(ApiError) as inside:
        b"".join(ask(24))  # 4,823 spoken characters
    assert inside.value.status_code == 402
    with pytest.raises(UnprocessableEntityError) as outside:
        b"".join(ask(25))  # 5,024
    detail = outside.value.body["detail"]
    assert detail["status"] == "parameter_invalid"
    assert "text: the spoken text" in detail["message"]
    assert credits() == 4_000 - spent
