"""What the dubbing tests share: media made on the spot, submitting a dub and waiting for its
end, downloading outputs, and timing measured on the audio itself."""

from __future__ import annotations

import io
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import av
import numpy as np
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.media.audio import Audio, decode
from tests.support.audio_fixtures import Clip, ReferenceWord
from tests.support.factories import Customer

DUBBING = "/api/v1/speech/dubbing"
GAP_S = 0.8


def joined_clips(clips: list[Clip]) -> tuple[Audio, list[ReferenceWord]]:
    """The clips one after the other with GAP_S of silence between (16 kHz mono), and
    their reference words on that timeline."""
    pieces: list[np.ndarray] = []
    words: list[ReferenceWord] = []
    offset = 0
    for clip in clips:
        audio = decode(clip.path, sample_rate=16_000, channels=1)
        offset_ms = round(offset * 1000 / 16_000)
        words += [
            ReferenceWord(w.word, w.start_ms + offset_ms, w.end_ms + offset_ms) for w in clip.words
        ]
        gap = np.zeros((round(GAP_S * 16_000), 1), dtype=np.float32)
        pieces += [audio.samples, gap]
        offset += audio.frames + gap.shape[0]
    return Audio(np.concatenate(pieces), 16_000), words


def utterance_starts(words: list[ReferenceWord], pause_ms: int = 700) -> list[int]:
    """Where the source's utterances start, by the reference alignment: its first word, and
    each word after a pause of pause_ms or more."""
    return [
        word.start_ms
        for previous, word in zip([None, *words], words, strict=False)
        if previous is None or word.start_ms - previous.end_ms >= pause_ms
    ]


def submit(client: TestClient, customer: Customer, **body: Any) -> dict[str, Any]:
    response = client.post(DUBBING, headers=customer.auth(), json=body)
    assert response.status_code == 200, response.text
    answer = dict(response.json())
    assert answer["status"] == "processing"
    assert answer["estimated_completion_ms"] > 0
    return answer


def wait(
    client: TestClient, customer: Customer, job_id: str, timeout: float = 600
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth()).json()
        if job["status"] in ("completed", "failed", "cancelled"):
            return dict(job)
        time.sleep(0.5)
    raise TimeoutError(f"job {job_id} did not finish")


def dub(client: TestClient, customer: Customer, **body: Any) -> dict[str, Any]:
    job = wait(client, customer, submit(client, customer, **body)["job_id"])
    assert job["status"] == "completed", job
    return job


def download(client: TestClient, settings: Settings, url: str, suffix: str = "") -> Path:
    response = client.get(url.removeprefix(settings.public_base_url))
    assert response.status_code == 200
    path = Path(tempfile.mkdtemp()) / f"output{suffix}"
    path.write_bytes(response.content)
    return path


def text_of(client: TestClient, settings: Settings, url: str) -> str:
    response = client.get(url.removeprefix(settings.public_base_url))
    assert response.status_code == 200
    return response.text


def onset_ms(audio: Audio, from_ms: int, to_ms: int) -> int | None:
    """The first 10 ms frame in [from_ms, to_ms) louder than a tenth of the audio's loud
    frames (its 95th percentile RMS): where speech starts there."""
    mono = audio.samples.mean(axis=1)
    frame = audio.sample_rate // 100
    count = mono.size // frame
    rms = np.sqrt(np.mean(np.square(mono[: count * frame].reshape(count, frame)), axis=1))
    threshold = 0.1 * float(np.quantile(rms, 0.95))
    first, last = max(0, from_ms // 10), min(count, to_ms // 10)
    loud = np.nonzero(rms[first:last] > threshold)[0]
    return None if loud.size == 0 else int(first + loud[0]) * 10


def video_with(
    audio: Audio,
    seconds: float,
    *,
    container: str = "mp4",
    codec: str = "mpeg4",
    pix_fmt: str = "yuv420p",
    size: tuple[int, int] = (160, 120),
    fps: int = 25,
    audio_codec: str = "aac",
) -> bytes:
    """A video made here: moving frames (MPEG-4 Part 2, 25 fps, 160x120 in an MP4 unless
    told otherwise) and the audio (mono, AAC unless told otherwise)."""
    width, height = size
    buffer = io.BytesIO()
    with av.open(buffer, "w", format=container) as out:
        video = cast(av.VideoStream, out.add_stream(codec, rate=fps))
        video.width, video.height, video.pix_fmt = width, height, pix_fmt
        sound = cast(av.AudioStream, out.add_stream(audio_codec, rate=audio.sample_rate))
        sound.layout = "mono"
        for index in range(round(seconds * fps)):
            pixels = np.full((height, width, 3), (index * 7) % 255, dtype=np.uint8)
            pixels[:, index % width] = 255
            frame = av.VideoFrame.from_ndarray(pixels, format="rgb24").reformat(format=pix_fmt)
            frame.pts = index
            for packet in video.encode(frame):
                out.mux(packet)
        for packet in video.encode(None):
            out.mux(packet)
        samples = av.AudioFrame.from_ndarray(audio.samples.T.copy(), format="fltp", layout="mono")
        samples.sample_rate = audio.sample_rate
        samples.pts = 0
        for packet in [*sound.encode(samples), *sound.encode(None)]:
            out.mux(packet)
    return buffer.getvalue()
