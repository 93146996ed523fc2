"""Dubbing of several speakers, of speech over music, and of video, through the real worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest
from fastapi.testclient import TestClient
from scipy.signal import resample_poly

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.engines.speakers.embeddings import embed, similarity
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.tts.registry import get_engine
from soundstage.media.audio import Audio, decode
from soundstage.voices.service import CatalogCounts
from tests.support import mixtures
from tests.support.audio import audio_bytes
from tests.support.audio_fixtures import librivox_clips
from tests.support.dubbing import download, dub, video_with
from tests.support.factories import Customer, create_customer
from tests.support.servers import FileServer

pytestmark = [
    pytest.mark.services,
    pytest.mark.slow,
    pytest.mark.measures,
    pytest.mark.usefixtures("worker", "demo_catalog"),
]

RATE = 16_000


@pytest.fixture
def rich(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=20_000)


def conversation() -> Audio:
    """A man (flite rms) and a woman (Festival slt) taking turns, a second between lines
    (engines that say a text the same way every time: Piper's decoder is random)."""
    lines = [
        ("flite", "rms", "Good morning, I would like to book a table for dinner."),
        ("festival", "cmu_us_slt_arctic_hts", "Of course. How many people are coming tonight?"),
        ("flite", "rms", "There will be four of us, around eight o'clock."),
        ("festival", "cmu_us_slt_arctic_hts", "Perfect, I have a quiet table by the window."),
    ]
    parts: list[np.ndarray] = []
    for engine, voice, text in lines:
        speech = get_engine(engine).synthesize(text, voice)
        mono = resample_poly(speech.samples[:, 0], RATE, speech.sample_rate).astype(np.float32)
        parts += [mono, np.zeros(RATE, dtype=np.float32)]
    return Audio(np.concatenate(parts).reshape(-1, 1), RATE)


def span(audio: Audio, start_ms: int, end_ms: int) -> Audio:
    first, last = start_ms * audio.sample_rate // 1000, end_ms * audio.sample_rate // 1000
    return Audio(np.ascontiguousarray(audio.samples[first:last]), audio.sample_rate)


def joined(audio: Audio, spans: list[tuple[int, int]]) -> Audio:
    return Audio(np.concatenate([span(audio, s, e).samples for s, e in spans]), audio.sample_rate)


def test_two_speakers_get_two_voices_each_closest_to_its_speaker(
    client: TestClient, settings: Settings, files: FileServer, rich: Customer
) -> None:
    source = conversation()
    url = files.put("conversation.wav", audio_bytes(source))
    job = dub(client, rich, media_url=url, source_language="en", target_language="es")
    result = job["result"]
    speakers = {s["speaker"]: s for s in result["speakers"]}
    assert len(speakers) == 2
    assert len({s["engine_voice"] for s in speakers.values()}) == 2
    output = decode(download(client, settings, result["output_url"]), sample_rate=RATE, channels=1)
    # Each source speaker's voice, and what their dubbed lines sound like.
    heard: dict[str, list[tuple[int, int]]] = {}
    said: dict[str, list[tuple[int, int]]] = {}
    for utterance in result["utterances"]:
        heard.setdefault(utterance["speaker"], []).append(
            (utterance["start_ms"], utterance["end_ms"])
        )
        said.setdefault(utterance["speaker"], []).append(
            (utterance["output_start_ms"], utterance["output_end_ms"])
        )
    assert set(heard) == set(speakers)
    source_voice = {who: embed(joined(source, spans)) for who, spans in heard.items()}
    dubbed_voice = {who: embed(joined(output, spans)) for who, spans in said.items()}
    first, second = sorted(speakers)
    for own, other in ((first, second), (second, first)):
        assert similarity(dubbed_voice[own], source_voice[own]) > similarity(
            dubbed_voice[own], source_voice[other]
        ), (own, speakers)
    # The man got a man's voice, the woman a woman's.
    by_line = [speakers[u["speaker"]]["gender"] for u in result["utterances"]]
    assert by_line[0] == "male"
    assert "female" in by_line

    # Without preserve_voice: the language's default voices, still one per speaker.
    plain = dub(
        client,
        rich,
        media_url=url,
        source_language="en",
        target_language="es",
        preserve_voice=False,
    )["result"]
    assert len({s["engine_voice"] for s in plain["speakers"]}) == len(plain["speakers"]) == 2
    assert all(s["pitch_shift_semitones"] == 0 for s in plain["speakers"])


def test_music_under_the_speech_stays_in_the_dub(
    client: TestClient, settings: Settings, files: FileServer, rich: Customer
) -> None:
    clip = librivox_clips()[0]
    voice = decode(clip.path, sample_rate=RATE, channels=1).samples[:, 0]
    music = mixtures.music(voice.size / RATE, RATE).samples.mean(axis=1)[: voice.size]
    music = music * (mixtures.rms(voice) / mixtures.rms(music) / 2)  # 6 dB under the voice
    mixture = Audio((voice + music).astype(np.float32).reshape(-1, 1), RATE)
    job = dub(
        client,
        rich,
        media_url=files.put("over-music.wav", audio_bytes(mixture)),
        source_language="en",
        target_language="es",
    )
    output = decode(download(client, settings, job["result"]["output_url"]), channels=1)
    assert output.sample_rate == RATE
    dubbed = output.samples[: voice.size, 0]
    # The music is still there, about as much as in the source, and the original voice is
    # gone but for what isolation leaves of it (the source correlates 0.9 with it).
    with_music = float(np.corrcoef(dubbed, music)[0, 1])
    with_voice = float(np.corrcoef(dubbed, voice)[0, 1])
    source_with_music = float(np.corrcoef(voice + music, music)[0, 1])
    assert with_music > 0.7 * source_with_music, (with_music, source_with_music)
    assert with_voice < 0.2, (with_music, with_voice)
    # Whisper hears Spanish, not the English under it.
    assert (
        get_transcriber().transcribe(output, language=None, word_timestamps=False).language == "es"
    )


def video_packets(path: Path) -> list[tuple[bytes, float, bool]]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        return [
            (bytes(packet), float((packet.pts or 0) * packet.time_base), packet.is_keyframe)
            for packet in container.demux(stream)
            if packet.size
        ]


@pytest.mark.parametrize(
    ("suffix", "video", "codec", "brand"),
    [
        ("mp4", {}, "mpeg4", "isom"),
        # ProRes, which an MP4 cannot hold, at the smallest size.
        (
            "mov",
            {
                "container": "mov",
                "codec": "prores_ks",
                "pix_fmt": "yuv422p10le",
                "size": (64, 48),
                "fps": 5,
            },
            "prores",
            "qt",
        ),
    ],
)
def test_video_keeps_its_video_stream_and_container_and_gets_the_dub(
    client: TestClient,
    settings: Settings,
    files: FileServer,
    rich: Customer,
    tmp_path: Path,
    suffix: str,
    video: dict[str, Any],
    codec: str,
    brand: str,
) -> None:
    clip = librivox_clips()[0]
    speech = decode(clip.path, sample_rate=RATE, channels=1)
    source = tmp_path / f"talk.{suffix}"
    source.write_bytes(video_with(speech, speech.duration_ms / 1000, **video))
    job = dub(
        client,
        rich,
        media_url=files.put(source.name, source.read_bytes()),
        source_language="en",
        target_language="es",
    )
    result = job["result"]
    assert result["output_url"].split("?")[0].endswith(f".{suffix}")
    output = download(client, settings, result["output_url"], f".{suffix}")
    # The video packets are the source's, byte for byte, at the same times.
    assert video_packets(output) == video_packets(source)
    with av.open(str(output)) as container:
        assert container.metadata["major_brand"].strip() == brand
        assert container.streams.video[0].codec_context.name == codec
        assert [s.codec_context.name for s in container.streams.audio] == ["aac"]
    # The sound is the Spanish dub, as long as the source's.
    sound = decode(output, sample_rate=RATE, channels=1)
    assert abs(sound.duration_ms - speech.duration_ms) <= 0.02 * speech.duration_ms
    assert (
        get_transcriber().transcribe(sound, language=None, word_timestamps=False).language == "es"
    )
