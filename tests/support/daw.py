"""DAW export helpers: inputs made here, the export driven through the API to its ZIP, and
the WAVE stems parsed back by hand."""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import soundfile
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.media.audio import Audio, encode
from tests.support.audio import wav_bytes
from tests.support.factories import Customer
from tests.support.jobs import wait_for_job

DAW = "/api/v1/creative/daw"
# Stands for an upload of the customer's (see with_upload) in requests written beforehand.
UPLOAD = "https://upload.invalid/clip.wav"


def with_upload(
    client: TestClient, customer: Customer, payload: dict[str, Any], seconds: float = 0.5
) -> dict[str, Any]:
    """The payload with every UPLOAD replaced by the URL of a short clip the customer
    uploads now (read where it is stored: not fetched nor copied at submit)."""
    uploaded = client.post(
        "/api/v1/uploads",
        headers=customer.auth(),
        files={"file": ("clip.wav", wav_bytes(seconds=seconds))},
    )
    assert uploaded.status_code == 200, uploaded.text
    url = uploaded.json()["url"]
    tracks = [
        {**track, "audio_url": url} if track.get("audio_url") == UPLOAD else track
        for track in payload.get("tracks", [])
    ]
    return {**payload, "tracks": tracks} if "tracks" in payload else payload


def noise(seconds: float, rate: int, channels: int, seed: int, level: float = 0.25) -> Audio:
    """Band-limited noise bursts: distinctive enough that alignment is unambiguous."""
    rng = np.random.default_rng(seed)
    frames = round(seconds * rate)
    # Smoothed white noise: its energy sits well below any resampler's cut-off.
    white = rng.standard_normal((frames + 15, channels))
    kernel = np.hanning(16) / np.hanning(16).sum()
    samples = np.stack([np.convolve(white[:, c], kernel, "valid") for c in range(channels)], 1)
    samples *= level / np.std(samples)
    envelope = (np.sin(np.linspace(0, 7 * np.pi, frames)) > 0).astype(np.float64)
    samples *= envelope[:, None]
    return Audio(np.clip(samples, -0.9, 0.9).astype(np.float32), rate)


def file_bytes(audio: Audio, fmt: str, tmp: Path, subtype: str | None = None) -> bytes:
    path = tmp / f"input.{fmt}"
    if fmt == "mp3":
        encode(audio, path, "mp3")
    else:
        soundfile.write(path, audio.samples, audio.sample_rate, subtype=subtype, format=fmt.upper())
    return path.read_bytes()


def export(client: TestClient, customer: Customer, body: dict[str, Any]) -> dict[str, Any]:
    """Submit and wait; the finished job."""
    response = client.post(DAW, headers=customer.auth(), json=body)
    assert response.status_code == 200, response.text
    accepted = response.json()
    assert accepted["status"] == "processing"
    return wait_for_job(client, customer, accepted["job_id"])


def download(client: TestClient, settings: Settings, url: str) -> zipfile.ZipFile:
    response = client.get(url.removeprefix(settings.public_base_url))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/zip"
    return zipfile.ZipFile(io.BytesIO(response.content))


@dataclass
class Wave:
    """A WAVE file as read here (RIFF chunks parsed by hand)."""

    chunks: dict[bytes, bytes]
    format_tag: int
    channels: int
    sample_rate: int
    bits: int

    @property
    def data(self) -> bytes:
        return self.chunks[b"data"]

    @property
    def frames(self) -> int:
        return len(self.data) // (self.channels * self.bits // 8)

    def integers(self) -> npt.NDArray[np.int64]:
        width = self.bits // 8
        raw = np.frombuffer(self.data, dtype=np.uint8).reshape(-1, width)
        if width == 2:
            values = raw.view("<i2").astype(np.int64).reshape(-1)
        else:
            padded = np.zeros((raw.shape[0], 4), dtype=np.uint8)
            padded[:, 1:] = raw
            values = padded.view("<i4").astype(np.int64).reshape(-1) >> 8
        return values.reshape(-1, self.channels)

    def floats(self) -> npt.NDArray[np.float64]:
        return self.integers() / float(1 << (self.bits - 1))

    @property
    def time_reference(self) -> int:
        return int(struct.unpack_from("<Q", self.chunks[b"bext"], 338)[0])


def parse_wave(raw: bytes) -> Wave:
    assert raw[:4] == b"RIFF"
    assert raw[8:12] == b"WAVE"
    assert struct.unpack_from("<I", raw, 4)[0] == len(raw) - 8
    chunks: dict[bytes, bytes] = {}
    at = 12
    while at < len(raw):
        name, size = raw[at : at + 4], struct.unpack_from("<I", raw, at + 4)[0]
        chunks[name] = raw[at + 8 : at + 8 + size]
        at += 8 + size + size % 2
    tag, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", chunks[b"fmt "])
    return Wave(chunks, tag, channels, rate, bits)
