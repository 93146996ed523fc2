"""Speaker embeddings: resemblyzer's voice encoder (a d-vector model, 256 floats on the unit
sphere) for a whole voice sample or for short windows along a recording.

torch, librosa and the model load on first use, not on import: the web process imports this
module (through the speech-to-text job) without ever running it."""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import sys
import types
from collections.abc import Iterable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from soundstage.engines.cache import MODELS
from soundstage.engines.errors import EngineUnavailable
from soundstage.engines.speakers.audio16k import SAMPLE_RATE, Mono, mono_16k, mono_blocks
from soundstage.engines.speakers.base import NoSpeech, Progress, Region
from soundstage.media.audio import Audio

EMBEDDING_SIZE: Final = 256
DEFAULT_WINDOW_S: Final = 0.8
DEFAULT_HOP_S: Final = 0.1
# A voice sample longer than this is a recording: embed_windows() is the way to go through it.
MAX_SAMPLE_S: Final = 600
# resemblyzer's volume target; its input is a mel power spectrogram (not log), so the level
# of the audio reaches the network and has to be brought to what it was trained on.
_TARGET_DBFS: Final = -30.0
# Below this peak there is nothing to hear.
_SILENT_PEAK: Final = 1e-4
# Less speech than this left after trimming silences is not a voice sample.
_MIN_SPEECH_S: Final = 0.3
_BATCH_WINDOWS: Final = 128

Embedding = npt.NDArray[np.float32]


def embed(audio: Audio) -> Embedding:
    """One L2-normalized 256-float embedding of the voice in a sample (a few seconds to a few
    minutes of one speaker). NoSpeech if there is no speech in it."""
    if audio.frames > MAX_SAMPLE_S * audio.sample_rate:
        raise ValueError(f"a voice sample is at most {MAX_SAMPLE_S} s; use embed_windows()")
    wav = mono_16k(audio)
    if wav.size == 0 or float(np.max(np.abs(wav))) < _SILENT_PEAK:
        raise NoSpeech("The audio is silent.", param="audio")
    resemblyzer = _resemblyzer()
    # preprocess_wav brings the volume up to the encoder's level and cuts pauses longer than
    # about 0.2 s (webrtcvad): the utterance embedding averages 1.6 s partials, and partials
    # full of silence would pull it towards the embedding of silence.
    wav = np.asarray(resemblyzer.preprocess_wav(np.clip(wav, -1.0, 1.0)), dtype=np.float32)
    if wav.size < _MIN_SPEECH_S * SAMPLE_RATE:
        raise NoSpeech("The audio holds too little speech to take a voice from.", param="audio")
    return _unit(np.asarray(_encoder().embed_utterance(wav), dtype=np.float32))


def embed_windows(
    audio: Audio,
    *,
    window_s: float = DEFAULT_WINDOW_S,
    hop_s: float = DEFAULT_HOP_S,
    regions: Sequence[Region] | None = None,
    progress: Progress | None = None,
) -> tuple[npt.NDArray[np.int64], Embedding]:
    """Embeddings of window_s windows every hop_s: their start times (ms, ascending) and an
    (n, 256) array. With regions, windows lie inside them (a region shorter than a window
    gets one window centered on it); without, they cover the whole audio.

    The audio is resampled block by block, so memory stays bounded however long it is.
    """
    if not 0 < hop_s <= window_s:
        raise ValueError("hop_s must be positive and at most window_s")
    window = round(window_s * SAMPLE_RATE)
    total = round(audio.frames * SAMPLE_RATE / audio.sample_rate)
    spans = [(0, total)] if regions is None else [_samples(region) for region in regions]
    starts = _window_starts(spans, total, window, round(hop_s * SAMPLE_RATE))
    embeddings = np.zeros((starts.size, EMBEDDING_SIZE), dtype=np.float32)
    done = 0
    for batch in _batches(_windows(mono_blocks(audio), starts, window), _BATCH_WINDOWS):
        embeddings[done : done + len(batch)] = _embed_batch(batch)
        done += len(batch)
        if progress is not None:
            progress(done / starts.size)
    return starts * 1000 // SAMPLE_RATE, embeddings


def similarity(a: npt.NDArray[np.floating[Any]], b: npt.NDArray[np.floating[Any]]) -> float:
    """Cosine similarity of two embeddings: 1 the same direction, lower is less alike."""
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# Windows


def _samples(region: Region) -> tuple[int, int]:
    return region.start_ms * SAMPLE_RATE // 1000, region.end_ms * SAMPLE_RATE // 1000


def _window_starts(
    spans: Iterable[tuple[int, int]], total: int, window: int, hop: int
) -> npt.NDArray[np.int64]:
    starts: list[int] = []
    latest = max(0, total - window)
    for begin, end in spans:
        if end <= begin:
            continue
        if end - begin <= window:
            starts.append(min(max(0, (begin + end - window) // 2), latest))
        else:
            starts.extend(range(begin, end - window + 1, hop))
    return np.sort(np.asarray(starts, dtype=np.int64))


def _windows(blocks: Iterable[Mono], starts: npt.NDArray[np.int64], window: int) -> Iterable[Mono]:
    """Cut the windows out of the stream of blocks in order, keeping only the samples that a
    window still to come needs; windows running past the end are padded with silence."""
    buffer = np.zeros(0, dtype=np.float32)
    offset = 0  # stream position of buffer[0]
    index = 0
    for block in blocks:
        buffer = np.concatenate([buffer, block])
        while index < starts.size and starts[index] + window <= offset + buffer.size:
            begin = int(starts[index]) - offset
            yield buffer[begin : begin + window]
            index += 1
        keep_from = int(starts[index]) - offset if index < starts.size else buffer.size
        buffer = buffer[keep_from:]
        offset += keep_from
    for start in starts[index:]:
        piece = buffer[int(start) - offset :][:window]
        yield np.pad(piece, (0, window - piece.size))


def _batches(windows: Iterable[Mono], size: int) -> Iterable[list[Mono]]:
    batch: list[Mono] = []
    for window in windows:
        batch.append(window)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _embed_batch(windows: list[Mono]) -> Embedding:
    # No preprocess_wav here: the windows already lie in speech (VAD), and trimming would move
    # them off their times. Only its volume step applies, window by window.
    import torch

    mels = _mel_spectrograms(np.stack([_level(window) for window in windows]))
    with torch.inference_mode():
        out = _encoder()(torch.from_numpy(mels))
    return np.asarray(out.numpy(), dtype=np.float32)


def _mel_spectrograms(windows: Mono) -> Mono:
    """resemblyzer's wav_to_mel_spectrogram for a batch of equal windows at once: the same
    numbers (power mel spectrogram, 25 ms frames every 10 ms), far faster than one librosa
    call per window (docs/calibration.md, "Speaker embeddings: batched mel spectrograms")."""
    import librosa

    n_fft, hop, basis = _mel_setup()
    power = np.abs(librosa.stft(windows, n_fft=n_fft, hop_length=hop)) ** 2
    mels: Mono = np.matmul(basis, power).transpose(0, 2, 1).astype(np.float32)
    return mels


@functools.cache
def _mel_setup() -> tuple[int, int, Mono]:
    import librosa

    hparams = _resemblyzer().hparams
    n_fft = hparams.sampling_rate * hparams.mel_window_length // 1000
    hop = hparams.sampling_rate * hparams.mel_window_step // 1000
    basis = librosa.filters.mel(
        sr=hparams.sampling_rate, n_fft=n_fft, n_mels=hparams.mel_n_channels
    )
    return n_fft, hop, basis.astype(np.float32)


def _level(window: Mono) -> Mono:
    """Raise (never lower) the window's volume to the encoder's level, as preprocess_wav does."""
    rms = float(np.sqrt(np.mean(np.square(window, dtype=np.float64))))
    if rms == 0.0:
        return window
    gain_db = _TARGET_DBFS - 20 * np.log10(rms)
    return window * np.float32(10 ** (gain_db / 20)) if gain_db > 0 else window


def _unit(vector: Embedding) -> Embedding:
    return vector / np.float32(np.linalg.norm(vector))


# The model


def load_encoder() -> None:
    """Load the process's speaker encoder now rather than on first use (about 2 s): a live
    session does it as it opens, not on its first utterance."""
    _encoder()


def _encoder() -> Any:
    """The process's one VoiceEncoder (on the CPU), loaded on first use."""
    return MODELS.get("speaker encoder", "resemblyzer", _load_encoder)


def _load_encoder() -> Any:
    import torch

    resemblyzer = _resemblyzer()
    # One thread: worker processes are the unit of parallelism, and more ran slower
    # (docs/calibration.md, "Speaker encoder and sentence embedder: one torch thread").
    torch.set_num_threads(1)
    return resemblyzer.VoiceEncoder("cpu", verbose=False)


def _resemblyzer() -> Any:
    try:
        _import_webrtcvad()
        import resemblyzer
    except ImportError as exc:
        raise EngineUnavailable(f"The speaker encoder is not installed: {exc}.") from exc
    return resemblyzer


def _import_webrtcvad() -> None:
    """Import webrtcvad (resemblyzer's silence trimmer) on setuptools without pkg_resources.

    webrtcvad 2.0.10 reads its own version with pkg_resources.get_distribution() at import,
    and setuptools 81 dropped pkg_resources. While it imports, a stand-in answering from
    importlib.metadata takes its place, and is removed at once so that nothing else takes it
    for the real one.
    """
    if "webrtcvad" in sys.modules or importlib.util.find_spec("pkg_resources") is not None:
        return
    stand_in = types.ModuleType("pkg_resources")
    stand_in.__dict__["get_distribution"] = lambda name: types.SimpleNamespace(
        version=importlib.metadata.version(name)
    )
    sys.modules["pkg_resources"] = stand_in
    try:
        import webrtcvad  # noqa: F401
    finally:
        if sys.modules.get("pkg_resources") is stand_in:
            del sys.modules["pkg_resources"]
