"""The official ElevenLabs SDK pointed at a live Soundstage, and a reader for the audio it
gets back in any of ElevenLabs' `output_format`s, decoded by PyAV (raw PCM and G.711 with the
demuxer and rate the name states)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import av
from elevenlabs import ElevenLabs, SpeechToTextChunkResponseModel

# No retries: a test sees the first answer.
ONCE: Any = {"max_retries": 0}

# The demuxer of each codec prefix of an `output_format` name.
_DEMUXERS = {"mp3": "mp3", "pcm": "s16le", "ulaw": "mulaw", "alaw": "alaw", "opus": "ogg"}
_RAW = {"pcm", "ulaw", "alaw"}
# The decoder PyAV names for each.
_CODECS = {
    "mp3": {"mp3", "mp3float"},
    "pcm": {"pcm_s16le"},
    "wav": {"pcm_s16le"},
    "ulaw": {"pcm_mulaw"},
    "alaw": {"pcm_alaw"},
    "opus": {"opus", "libopus"},
}


def sdk(live_url: str, key: str) -> ElevenLabs:
    return ElevenLabs(base_url=live_url + "/elevenlabs", api_key=key, timeout=120)


def transcribe(client: ElevenLabs, **fields: Any) -> SpeechToTextChunkResponseModel:
    """POST /v1/speech-to-text through the SDK, which reads the answer as its chunk model."""
    answer = client.speech_to_text.convert(model_id="scribe_v1", request_options=ONCE, **fields)
    assert isinstance(answer, SpeechToTextChunkResponseModel)
    return answer


@dataclass(frozen=True)
class Decoded:
    codec: str
    sample_rate: int
    seconds: float
    bit_rate: int | None


def decode_output(data: bytes, output_format: str) -> Decoded:
    """Decode bytes said to be in `output_format` (`mp3_44100_128`, `pcm_16000`...), reading
    raw formats at the rate in their name, mono; asserts the codec is the one named."""
    codec = output_format.split("_")[0]
    rate = output_format.split("_")[1]
    demuxer = "wav" if codec == "wav" else _DEMUXERS[codec]
    options = {"sample_rate": rate, "ch_layout": "mono"} if codec in _RAW else {}
    with av.open(io.BytesIO(data), "r", format=demuxer, options=options) as container:
        stream = container.streams.audio[0]
        name = stream.codec_context.name
        bit_rate = stream.codec_context.bit_rate or None
        frames = list(container.decode(stream))
    assert name in _CODECS[codec], (output_format, name)
    sample_rate = frames[0].sample_rate
    return Decoded(name, sample_rate, sum(f.samples for f in frames) / sample_rate, bit_rate)
