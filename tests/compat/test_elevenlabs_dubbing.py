"""ElevenLabs' dubbing through the official SDK against a live server: a short real recording
(LibriVox, English) dubbed into Spanish by the native job with its language detected, polled
until dubbed, its audio as long as the source and said again, charged as the native dub; the
same recording sent as a `source_url` the server fetches; and the errors ElevenLabs' clients
expect."""

from __future__ import annotations

import io
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import av
import numpy as np
import pytest
from elevenlabs import DubbingMetadataResponse, ElevenLabs
from elevenlabs.core.api_error import ApiError
from elevenlabs.errors import UnprocessableEntityError

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.voices.service import CatalogCounts
from tests.support.audio_fixtures import librivox_clips
from tests.support.elevenlabs import ONCE, sdk
from tests.support.factories import create_customer
from tests.support.processes import serve
from tests.support.servers import FileServer


@pytest.fixture(scope="module")
def live_url(
    settings: Settings, worker: subprocess.Popen[bytes], demo_catalog: CatalogCounts
) -> Iterator[str]:
    """The compatible surfaces' live server, fetching a `source_url` from the test's file
    server on 127.0.0.1 as the worker does (the address rules refuse loopback otherwise)."""
    yield from serve(settings, SOUNDSTAGE_FETCH_ALLOW_HOSTS="127.0.0.1")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FileServer]:
    server = FileServer(tmp_path_factory.mktemp("files"))
    yield server
    server.server.shutdown()


def decoded(data: bytes) -> tuple[float, np.ndarray]:
    """Seconds and samples (mono, float, full scale 1) of a media file's audio."""
    with av.open(io.BytesIO(data), "r") as container:
        stream = container.streams.audio[0]
        rate = stream.codec_context.sample_rate
        mono = av.AudioResampler(format="flt", layout="mono", rate=rate)
        frames = [
            out.to_ndarray().ravel()
            for frame in container.decode(stream)
            for out in mono.resample(frame)
        ]
        frames += [out.to_ndarray().ravel() for out in mono.resample(None)]
    samples = np.concatenate(frames)
    return samples.size / rate, samples


def wait_dubbed(client: ElevenLabs, dubbing_id: str) -> DubbingMetadataResponse:
    deadline = time.monotonic() + 600
    while True:
        dub: DubbingMetadataResponse = client.dubbing.get(dubbing_id, request_options=ONCE)
        if dub.status != "dubbing":
            return dub
        assert time.monotonic() < deadline, dub
        time.sleep(0.5)


def detail(error: ApiError) -> dict[str, Any]:
    body: dict[str, Any] = error.body["detail"]
    return body


def test_a_clip_is_dubbed_into_spanish(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=1_000)
    client = sdk(live_url, customer.sandbox_key)
    clip = librivox_clips()[1]  # 3 s
    source_seconds, source = decoded(clip.path.read_bytes())
    created = client.dubbing.create(
        file=(clip.path.name, clip.path.read_bytes(), "audio/flac"),
        target_lang="es",
        source_lang="auto",
        name="Sense and Sensibility",
        num_speakers=0,
        watermark=False,
        request_options=ONCE,
    )
    assert created.expected_duration_sec > 0
    # At once, the dub is under way: its audio is not there yet.
    assert client.dubbing.get(created.dubbing_id, request_options=ONCE).status == "dubbing"
    with pytest.raises(ApiError) as early:
        b"".join(client.dubbing.audio.get(created.dubbing_id, "es", request_options=ONCE))
    assert early.value.status_code == 409

    dub = wait_dubbed(client, created.dubbing_id)
    assert dub.status == "dubbed", dub
    assert (dub.name, dub.source_language, dub.target_languages) == (
        "Sense and Sensibility",
        "en",  # detected
        ["es"],
    )
    assert dub.error is None
    assert dub.media_metadata is not None
    # FLAC in, FLAC out, as long as the source.
    assert dub.media_metadata.content_type == "audio/flac"
    assert dub.media_metadata.duration == pytest.approx(source_seconds, rel=0.02)

    audio = b"".join(client.dubbing.audio.get(created.dubbing_id, "es", request_options=ONCE))
    seconds, samples = decoded(audio)
    assert seconds == pytest.approx(source_seconds, rel=0.02)
    # Speech, and not the source's: the voice was taken out and another said the translation
    # (the two waveforms are unrelated; the source against itself would be 1).
    assert np.sqrt(np.mean(np.square(samples))) > 0.01
    frames = min(samples.size, source.size)
    a, b = samples[:frames], source[:frames]
    assert abs(np.dot(a, b)) / (np.linalg.norm(a) * np.linalg.norm(b)) < 0.3
    # Charged as the native dub: 1,500 credits a minute, per started second.
    expected = rates.for_duration(Operation.DUBBING_STANDARD, round(source_seconds * 1000))
    assert expected == 75
    balance = client.user.subscription.get(request_options=ONCE).character_limit
    assert balance == 1_000 - expected

    # Only the key's environment sees it; only the language it was dubbed into (its 639-3
    # code too).
    with pytest.raises(ApiError) as hidden:
        sdk(live_url, customer.production_key).dubbing.get(created.dubbing_id, request_options=ONCE)
    assert hidden.value.status_code == 404
    assert b"".join(client.dubbing.audio.get(created.dubbing_id, "spa", request_options=ONCE))
    with pytest.raises(ApiError) as other:
        b"".join(client.dubbing.audio.get(created.dubbing_id, "fr", request_options=ONCE))
    assert other.value.status_code == 404
    assert detail(other.value)["status"] == "dubbing_not_found"


def test_a_source_url_is_fetched_and_dubbed(live_url: str, db: Database, files: FileServer) -> None:
    """`source_url` instead of a file: the server fetches the media itself, measures and
    charges it as an upload, and names the dub after the URL's file; a URL with nothing
    behind it is 422 `media_unreachable`, and charges nothing."""
    customer = create_customer(db, credits_each=1_000)
    client = sdk(live_url, customer.sandbox_key)
    clip = librivox_clips()[1]  # 3 s
    source_seconds, _ = decoded(clip.path.read_bytes())
    url = files.put(clip.path.name, clip.path.read_bytes())

    with pytest.raises(UnprocessableEntityError) as missing:
        client.dubbing.create(
            source_url=url.replace(clip.path.name, "missing.flac"),
            target_lang="es",
            request_options=ONCE,
        )
    assert detail(missing.value)["status"] == "media_unreachable", detail(missing.value)

    created = client.dubbing.create(
        source_url=url, target_lang="es", source_lang="en", request_options=ONCE
    )
    dub = wait_dubbed(client, created.dubbing_id)
    assert dub.status == "dubbed", dub
    assert (dub.name, dub.source_language, dub.target_languages) == (
        clip.path.name,
        "en",
        ["es"],
    )
    assert dub.media_metadata is not None
    assert dub.media_metadata.content_type == "audio/flac"
    audio = b"".join(client.dubbing.audio.get(created.dubbing_id, "es", request_options=ONCE))
    seconds, samples = decoded(audio)
    assert seconds == pytest.approx(source_seconds, rel=0.02)
    assert np.sqrt(np.mean(np.square(samples))) > 0.01
    # Charged as the upload of the same clip: 75 credits, once.
    balance = client.user.subscription.get(request_options=ONCE).character_limit
    assert balance == 1_000 - 75


def test_errors_in_elevenlabs_shape(live_url: str, db: Database) -> None:
    client = sdk(live_url, create_customer(db, credits_each=100).sandbox_key)
    clip = librivox_clips()[0]  # 7.1 s
    flac = (clip.path.name, clip.path.read_bytes(), "audio/flac")

    # An unknown id, or a job that is not a dub (a speech's).
    with client.text_to_speech.with_raw_response.convert(
        "voice_kal", text="Hi.", request_options=ONCE
    ) as speech:
        b"".join(speech.data)
        speech_job = speech.headers["soundstage-job-id"]
    for unknown in ("job_unknown", speech_job):
        with pytest.raises(ApiError) as missing:
            client.dubbing.get(unknown, request_options=ONCE)
        assert missing.value.status_code == 404
        assert detail(missing.value)["status"] == "dubbing_not_found"
        with pytest.raises(ApiError) as no_audio:
            b"".join(client.dubbing.audio.get(unknown, "es", request_options=ONCE))
        assert no_audio.value.status_code == 404

    def refused(**fields: Any) -> dict[str, Any]:
        with pytest.raises(UnprocessableEntityError) as error:
            client.dubbing.create(request_options=ONCE, **fields)
        return detail(error.value)

    assert refused(file=flac)["message"].startswith("target_lang")
    assert refused(target_lang="es")["message"].startswith("file")
    unsupported = refused(file=flac, target_lang="tlh")
    assert (unsupported["status"], unsupported["message"][:3]) == (
        "unsupported_language_pair",
        "No ",
    )
    not_media = refused(file=("notes.mp3", b"not audio " * 100), target_lang="es")
    assert not_media["status"] == "invalid_media"
    assert refused(file=flac, target_lang="es", start_time=1)["message"].startswith("start_time")
    assert refused(file=flac, target_lang="es", mode="manual")["message"].startswith("mode")
    # The clip (8 started seconds) costs 200 credits: 100 do not buy it.
    with pytest.raises(ApiError) as poor:
        client.dubbing.create(file=flac, target_lang="es", request_options=ONCE)
    assert poor.value.status_code == 402
