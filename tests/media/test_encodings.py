"""Every named encoding of media.encodings, streamed by StreamEncoder and read back by FFmpeg
(PyAV): its rate, its length, its bit rate and the signal it carries."""

from __future__ import annotations

import functools
import io
from pathlib import Path

import av
import numpy as np
import pytest
import soundfile as sf

from soundstage.media.audio import Audio, Samples, StreamEncoder, decode, finalize
from soundstage.media.encodings import ENCODINGS, Encoding, encoding
from tests.support.audio import encoded_frames

SPEECH = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "librivox"
    / "sense_and_sensibility_01_austen_64kb-0870.flac"
)
# Piper's rate: what the TTS job hands its encoder.
INPUT_RATE = 22_050
SECONDS = 1.0
# Codec delay and padding a decoder that is told nothing about them returns: LAME's
# ~1100 samples and a frame of padding, AAC's 1024-sample priming plus a frame.
SLACK_SECONDS = {"mp3": 0.08, "adts": 0.1}
# Every `output_format` the elevenlabs SDK (2.78.0) names.
ELEVENLABS = [
    "mp3_22050_32",
    "mp3_24000_48",
    "mp3_44100_32",
    "mp3_44100_64",
    "mp3_44100_96",
    "mp3_44100_128",
    "mp3_44100_192",
    "mp3_48000_128",
    "mp3_48000_192",
    "mp3_48000_240",
    "mp3_48000_320",
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


def sweep(rate: int, seconds: float = SECONDS) -> Samples:
    """A tone gliding from 200 Hz to 3.2 kHz (under every rate's Nyquist), at half scale."""
    t = np.arange(round(rate * seconds)) / rate
    phase = 2 * np.pi * (200 * t + 1500 * t**2 / seconds)
    return (0.5 * np.sin(phase)).astype(np.float32).reshape(-1, 1)


@functools.cache
def speech(rate: int) -> Samples:
    """A second of a LibriVox reader (1 s into the clip, mid-sentence) at `rate`."""
    return decode(SPEECH, sample_rate=rate, channels=1).samples[rate : 2 * rate]


def streamed(fmt: Encoding, audio: Audio, pieces: int = 3) -> tuple[bytes, list[int]]:
    """The bytes StreamEncoder writes, and how many had come after each write."""
    out = io.BytesIO()
    encoder = StreamEncoder(out, fmt, audio.sample_rate, audio.channels)
    sizes = []
    for part in np.array_split(audio.samples, pieces):
        encoder.write(Audio(part, audio.sample_rate))
        sizes.append(len(out.getvalue()))
    encoder.close()
    return out.getvalue(), sizes


def decoded(fmt: Encoding, data: bytes) -> tuple[int, Samples]:
    """The decoded rate and mono float samples."""
    frames = encoded_frames(fmt, data)
    resampler = av.AudioResampler(format="flt", layout="mono", rate=frames[0].sample_rate)
    parts = [
        converted.to_ndarray().reshape(-1, 1)
        for frame in [*frames, None]
        for converted in resampler.resample(frame)
    ]
    return frames[0].sample_rate, np.concatenate(parts).astype(np.float32)


def envelope(samples: Samples, rate: int) -> Samples:
    """RMS per 10 ms: what a listener hears as loudness, whatever a codec did to the phase
    (Opus's SILK mode keeps the sound, not the waveform)."""
    hop = rate // 100
    frames = samples[: samples.shape[0] // hop * hop, 0].reshape(-1, hop)
    return np.asarray(np.sqrt(np.mean(np.square(frames), axis=1)), dtype=np.float32)


def best_correlation(expected: Samples, got: Samples, max_lag: int) -> float:
    """The normalized correlation of the two at the codec delay that fits best."""
    expected, got = expected.reshape(-1), got.reshape(-1)
    best = 0.0
    for lag in range(max_lag + 1):
        window = got[lag : lag + expected.shape[0]]
        length = min(window.shape[0], expected.shape[0])
        a, b = expected[:length] - expected.mean(), window[:length] - window.mean()
        best = max(best, float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9)))
    return best


def test_every_elevenlabs_and_openai_name_is_there() -> None:
    openai = [f"openai_{name}" for name in ("mp3", "opus", "aac", "flac", "wav", "pcm")]
    assert sorted(ENCODINGS) == sorted(ELEVENLABS + openai)
    for name, fmt in ENCODINGS.items():
        assert fmt.name == name
        if name.startswith(("pcm_", "wav_", "mp3_", "opus_", "ulaw_", "alaw_")):
            assert fmt.sample_rate == int(name.split("_")[1])
            kbps = name.split("_")[2:]
            assert fmt.bit_rate == (int(kbps[0]) * 1000 if kbps else None)


def test_an_unknown_name_is_a_value_error_naming_the_valid_ones() -> None:
    assert encoding("pcm_24000").sample_rate == 24_000
    with pytest.raises(ValueError, match="mp3_44100_128"):
        encoding("mp3_44100_999")


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_each_encoding_streams_speech_at_its_rate(name: str) -> None:
    fmt = ENCODINGS[name]
    data, sizes = streamed(fmt, Audio(speech(INPUT_RATE), INPUT_RATE))
    # Bytes come out while the audio is still being written (a stream, not a file at the end).
    assert 0 < sizes[1] < len(data)
    whole = finalize(fmt, data)
    rate, samples = decoded(fmt, whole)
    assert rate == fmt.sample_rate
    seconds = samples.shape[0] / rate
    assert SECONDS - 0.005 <= seconds <= SECONDS + SLACK_SECONDS.get(fmt.container, 0.01)
    if fmt.bit_rate is not None:
        bits_per_second = len(whole) * 8 / SECONDS
        # Headers (ID3, Ogg pages) and codec padding add a little; Opus is constrained VBR.
        assert 0.85 * fmt.bit_rate <= bits_per_second <= 1.2 * fmt.bit_rate
    expected = speech(rate)
    rms = float(np.sqrt(np.mean(np.square(samples))))
    assert rms == pytest.approx(float(np.sqrt(np.mean(np.square(expected)))), rel=0.15)
    # The same speech, at the codec's delay (at most 0.1 s): the same waveform from the
    # lossless encodings, the same rise and fall of loudness from every one.
    if fmt.bit_rate is None:
        assert best_correlation(expected, samples, max_lag=rate // 100) > 0.95
    assert best_correlation(envelope(expected, rate), envelope(samples, rate), 10) > 0.95


def test_a_lossy_stream_keeps_a_sine_sweep() -> None:
    """A tone too, where a codec's speech model does not help (Opus 32 kb/s at 48 kHz spends
    its bits in SILK and is left out: it does not keep a pure tone's level)."""
    for name in ("mp3_22050_32", "mp3_44100_128", "opus_48000_64", "openai_aac"):
        fmt = ENCODINGS[name]
        data, _ = streamed(fmt, Audio(sweep(INPUT_RATE), INPUT_RATE))
        rate, samples = decoded(fmt, data)
        assert best_correlation(sweep(rate), samples, max_lag=rate // 10) > 0.9, name


@pytest.mark.parametrize("name", ["wav_16000", "openai_wav"])
def test_a_finalized_wav_has_exact_sizes(name: str) -> None:
    fmt = ENCODINGS[name]
    data, _ = streamed(fmt, Audio(sweep(INPUT_RATE, 0.5), INPUT_RATE))
    assert data[4:8] == b"\xff\xff\xff\xff"
    whole = finalize(fmt, data)
    assert int.from_bytes(whole[4:8], "little") == len(whole) - 8
    # libsndfile reads the header's sizes as they are: the frame count is the data's.
    info = sf.info(io.BytesIO(whole))
    assert (info.samplerate, info.channels, info.frames) == (
        fmt.sample_rate,
        1,
        fmt.sample_rate // 2,
    )
    with pytest.raises(ValueError, match="not a WAV"):
        finalize(fmt, b"ID3" + whole)


def test_a_finalized_flac_has_its_total() -> None:
    fmt = ENCODINGS["openai_flac"]
    data, _ = streamed(fmt, Audio(sweep(INPUT_RATE, 0.5), INPUT_RATE))
    # Streamed, STREAMINFO's total is 0, "unknown" (libsndfile then reports 2**63 - 1 frames).
    assert int.from_bytes(data[18:26], "big") & (2**36 - 1) == 0
    whole = finalize(fmt, data)
    info = sf.info(io.BytesIO(whole))
    assert (info.samplerate, info.channels, info.frames) == (24_000, 1, 12_000)
    assert sf.read(io.BytesIO(whole))[0].shape == (12_000,)
    with pytest.raises(ValueError, match="not a FLAC"):
        finalize(fmt, whole[:10])


def test_other_streams_are_final_as_they_are() -> None:
    for name in ("openai_mp3", "openai_opus", "openai_aac", "pcm_16000"):
        data, _ = streamed(ENCODINGS[name], Audio(sweep(INPUT_RATE, 0.2), INPUT_RATE))
        assert finalize(ENCODINGS[name], data) == data
    assert finalize("mp3", b"abc") == b"abc"


@pytest.mark.parametrize("name", ["mp3_44100_64", "opus_48000_64", "openai_aac", "pcm_16000"])
def test_stereo_input_stays_stereo(name: str) -> None:
    fmt = ENCODINGS[name]
    stereo = np.repeat(sweep(INPUT_RATE, 0.3), 2, axis=1)
    out = io.BytesIO()
    encoder = StreamEncoder(out, fmt, INPUT_RATE, 2)
    encoder.write(Audio(stereo, INPUT_RATE))
    encoder.close()
    assert (encoder.sample_rate, encoder.channels) == (fmt.sample_rate, 2)
    assert {frame.layout.nb_channels for frame in encoded_frames(fmt, out.getvalue(), 2)} == {2}
