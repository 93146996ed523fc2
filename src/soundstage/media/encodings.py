"""The named output encodings of the compatible APIs: ElevenLabs' `output_format` names and
OpenAI's `response_format`s (as `openai_<format>`), each an FFmpeg muxer and encoder at one
exact sample rate and bit rate, with the Content-Type its bytes are sent under.

Every encoding is mono or as given (`media.audio.StreamEncoder` keeps the input's channels,
at most two for the lossy codecs) and 16-bit where it is PCM. Choices made:

- ElevenLabs names are `<codec>_<rate>[_<kb/s>]`; every name the `elevenlabs` Python SDK
  2.78.0 lists is here, including the `mp3_48000_*` rates its music API names.
- `mp3_*`: LAME (`libmp3lame`) CBR at the named rate and bit rate, `audio/mpeg`.
  `openai_mp3` is 24 kHz (OpenAI's speech is 24 kHz) at 128 kb/s, `audio/mpeg`.
- `pcm_*` and `openai_pcm`: raw signed 16-bit little-endian samples, no header (what both
  APIs send), `audio/pcm`. The registered `audio/L16` is big-endian, so it would be wrong.
- `ulaw_8000`: raw G.711 mu-law, `audio/basic` (RFC 2046's type for exactly 8 kHz mono
  mu-law). `alaw_8000`: raw G.711 A-law, `audio/x-alaw-basic` (no registered type for a bare
  A-law stream; this is the name GStreamer and others use).
- `opus_48000_*`: Opus (`libopus`, constrained VBR at the named bit rate) in Ogg at 48 kHz,
  `audio/ogg` (RFC 7845's type for Ogg Opus). `openai_opus` is the same at 48 kHz and
  32 kb/s under `audio/opus`, the Content-Type OpenAI's API answers with.
- `wav_*` and `openai_wav` (24 kHz): 16-bit PCM in RIFF/WAVE, `audio/wav`. Streamed, the
  header's sizes are unknown (0xFFFFFFFF); `media.audio.finalize` patches them for a file
  sent whole.
- `openai_aac`: FFmpeg's native AAC-LC encoder in ADTS frames at 24 kHz, 64 kb/s,
  `audio/aac`.
- `openai_flac`: FLAC (16-bit) at 24 kHz, `audio/flac`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Final

from pydantic import AfterValidator


@dataclass(frozen=True)
class Encoding:
    """One named output encoding: how the bytes are made and what they are called."""

    name: str
    # FFmpeg's muxer and encoder names.
    container: str
    codec: str
    # The output's rate, exactly (input at any other rate is resampled).
    sample_rate: int
    # Bits per second for the lossy codecs; None where the codec has no bit rate setting.
    bit_rate: int | None
    content_type: str

    @property
    def is_raw(self) -> bool:
        """Headerless samples: a reader must be told the rate, channels and sample format."""
        return self.container in _RAW_CONTAINERS


_RAW_CONTAINERS: Final = frozenset({"s16le", "mulaw", "alaw"})
_PCM_RATES: Final = (8_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000)
_MP3: Final = (
    (22_050, 32),
    (24_000, 48),
    (44_100, 32),
    (44_100, 64),
    (44_100, 96),
    (44_100, 128),
    (44_100, 192),
    (48_000, 128),
    (48_000, 192),
    (48_000, 240),
    (48_000, 320),
)
_OPUS_KBPS: Final = (32, 64, 96, 128, 192)
_OPENAI_RATE: Final = 24_000


def _all() -> list[Encoding]:
    found = [
        Encoding(f"mp3_{rate}_{kbps}", "mp3", "libmp3lame", rate, kbps * 1000, "audio/mpeg")
        for rate, kbps in _MP3
    ]
    found += [
        Encoding(f"pcm_{rate}", "s16le", "pcm_s16le", rate, None, "audio/pcm")
        for rate in _PCM_RATES
    ]
    found += [
        Encoding(f"wav_{rate}", "wav", "pcm_s16le", rate, None, "audio/wav") for rate in _PCM_RATES
    ]
    found += [
        Encoding("ulaw_8000", "mulaw", "pcm_mulaw", 8_000, None, "audio/basic"),
        Encoding("alaw_8000", "alaw", "pcm_alaw", 8_000, None, "audio/x-alaw-basic"),
    ]
    found += [
        Encoding(f"opus_48000_{kbps}", "ogg", "libopus", 48_000, kbps * 1000, "audio/ogg")
        for kbps in _OPUS_KBPS
    ]
    found += [
        Encoding("openai_mp3", "mp3", "libmp3lame", _OPENAI_RATE, 128_000, "audio/mpeg"),
        Encoding("openai_opus", "ogg", "libopus", 48_000, 32_000, "audio/opus"),
        Encoding("openai_aac", "adts", "aac", _OPENAI_RATE, 64_000, "audio/aac"),
        Encoding("openai_flac", "flac", "flac", _OPENAI_RATE, None, "audio/flac"),
        Encoding("openai_wav", "wav", "pcm_s16le", _OPENAI_RATE, None, "audio/wav"),
        Encoding("openai_pcm", "s16le", "pcm_s16le", _OPENAI_RATE, None, "audio/pcm"),
    ]
    return found


ENCODINGS: Final[dict[str, Encoding]] = {found.name: found for found in _all()}


def encoding(name: str) -> Encoding:
    """The encoding called `name`; ValueError, listing the valid names, for any other."""
    found = ENCODINGS.get(name)
    if found is None:
        raise ValueError(f"unknown encoding {name!r}: one of {', '.join(ENCODINGS)}")
    return found


def _known(name: str) -> str:
    encoding(name)  # ValueError naming the valid ones
    return name


# A field holding an encoding's name (a job's requested output), checked when it is read.
EncodingName = Annotated[str, AfterValidator(_known)]
