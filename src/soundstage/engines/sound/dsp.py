"""Building blocks of the sound recipes: noises, filters (fixed and swept), oscillators with
pitch contours, envelopes, modal resonators, event placement and reverberation. Mono float64
signals at one sample rate throughout; recipes combine these."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

# scipy.signal (most of a second to import) is imported in the functions that filter: the API
# process imports this module with the sound job kind and never filters.

Signal = npt.NDArray[np.float64]

RATE: Final = 44_100
_SWEEP_BLOCK: Final = 256


def seconds(n: float) -> int:
    """Frames in n seconds."""
    return max(1, round(n * RATE))


def timeline(frames: int) -> Signal:
    return np.arange(frames, dtype=np.float64) / RATE


# --- noise -----------------------------------------------------------------------------------


def white(rng: np.random.Generator, frames: int) -> Signal:
    return rng.standard_normal(frames)


def colored(rng: np.random.Generator, frames: int, slope_db_per_octave: float) -> Signal:
    """Noise whose power falls `slope_db_per_octave` per octave (-3 pink, -6 brown), unit RMS."""
    spectrum = rng.standard_normal(frames // 2 + 1) + 1j * rng.standard_normal(frames // 2 + 1)
    bins = np.maximum(np.arange(frames // 2 + 1, dtype=np.float64), 1.0)
    spectrum *= bins ** (slope_db_per_octave / (20 * np.log10(2)))
    spectrum[0] = 0.0
    return unit(np.fft.irfft(spectrum, n=frames))


def pink(rng: np.random.Generator, frames: int) -> Signal:
    return colored(rng, frames, -3.0)


def brown(rng: np.random.Generator, frames: int) -> Signal:
    return colored(rng, frames, -6.0)


def smooth_random(rng: np.random.Generator, frames: int, rate_hz: float) -> Signal:
    """A slowly wandering control signal in [-1, 1]: random points `rate_hz` apart, joined by
    cosine interpolation."""
    points = max(2, int(frames / RATE * rate_hz) + 2)
    values = rng.uniform(-1.0, 1.0, points)
    position = np.linspace(0, points - 1.000001, frames)
    index = position.astype(np.int64)
    frac = position - index
    weight = (1 - np.cos(np.pi * frac)) / 2
    out: Signal = values[index] * (1 - weight) + values[index + 1] * weight
    return out


def slow_random(rng: np.random.Generator, frames: int, rate_hz: float, step: int = 64) -> Signal:
    """smooth_random computed every `step` frames and joined linearly: the same kind of
    control curve for a fraction of the cost, when it moves far slower than the sample rate."""
    coarse = smooth_random(rng, frames // step + 2, rate_hz * step)
    out: Signal = np.interp(np.arange(frames) / step, np.arange(coarse.shape[0]), coarse)
    return out


# --- filters ---------------------------------------------------------------------------------

FilterKind = Literal["lowpass", "highpass", "bandpass", "bandstop"]


def _clip_hz(freq: float) -> float:
    return float(min(max(freq, 10.0), RATE / 2 * 0.95))


def filt(x: Signal, kind: FilterKind, freq: float | tuple[float, float], order: int = 2) -> Signal:
    """Butterworth filter (zero-state, causal)."""
    from scipy import signal as sps

    edges = tuple(_quantized(f) for f in freq) if isinstance(freq, tuple) else _quantized(freq)
    out: Signal = sps.sosfilt(_butter(kind, edges, order), x)
    return out


def _quantized(freq: float) -> float:
    """The frequency rounded to 1/200 of an octave (inaudible), so designs can be reused."""
    return float(2 ** (round(np.log2(_clip_hz(freq)) * 200) / 200))


@functools.lru_cache(maxsize=4096)
def _butter(kind: FilterKind, edges: float | tuple[float, ...], order: int) -> Signal:
    from scipy import signal as sps

    # Designing a filter (scipy's butter) costs milliseconds; recipes ask for the same few.
    sos: Signal = sps.butter(order, edges, btype=kind, fs=RATE, output="sos")
    return sos


def lowpass(x: Signal, freq: float, order: int = 2) -> Signal:
    return filt(x, "lowpass", freq, order)


def highpass(x: Signal, freq: float, order: int = 2) -> Signal:
    return filt(x, "highpass", freq, order)


def bandpass(x: Signal, low: float, high: float, order: int = 2) -> Signal:
    return filt(x, "bandpass", (low, high), order)


def _biquad(kind: str, freq: float, q: float) -> tuple[list[float], list[float]]:
    """RBJ cookbook biquad coefficients (b, a), normalized."""
    w0 = 2 * np.pi * _clip_hz(freq) / RATE
    alpha = np.sin(w0) / (2 * q)
    cos = np.cos(w0)
    # Band-pass with a 0 dB peak, or low-pass.
    b = [alpha, 0.0, -alpha] if kind == "bandpass" else [(1 - cos) / 2, 1 - cos, (1 - cos) / 2]
    a = [1 + alpha, -2 * cos, 1 - alpha]
    return [v / a[0] for v in b], [v / a[0] for v in a]


def resonate(x: Signal, freq: float, q: float) -> Signal:
    """A resonant band-pass (0 dB at `freq`, bandwidth freq/q)."""
    from scipy import signal as sps

    b, a = _biquad("bandpass", freq, q)
    out: Signal = sps.lfilter(b, a, x)
    return out


def sweep(
    x: Signal, freq: Signal | float, q: float, kind: Literal["bandpass", "lowpass"] = "bandpass"
) -> Signal:
    """A biquad whose centre (or cutoff) follows `freq` (Hz per sample), updated every 256
    samples with the filter state carried across."""
    from scipy import signal as sps

    curve = np.broadcast_to(np.asarray(freq, dtype=np.float64), x.shape)
    out = np.empty_like(x)
    state = np.zeros(2)
    for start in range(0, x.shape[0], _SWEEP_BLOCK):
        stop = min(start + _SWEEP_BLOCK, x.shape[0])
        b, a = _biquad(kind, float(curve[(start + stop) // 2]), q)
        out[start:stop], state = sps.lfilter(b, a, x[start:stop], zi=state)
    return out


def formants(x: Signal, bands: Sequence[tuple[float, float, float]]) -> Signal:
    """Parallel resonators: (centre Hz, bandwidth Hz, gain) each, as a vocal tract."""
    out = np.zeros_like(x)
    for freq, width, gain in bands:
        out += gain * resonate(x, freq, max(freq / max(width, 1.0), 0.5))
    return out


def comb(x: Signal, delay_s: float, feedback: float) -> Signal:
    """Feedback comb filter: a metallic, pitched ring at 1/delay."""
    from scipy import signal as sps

    delay = max(1, round(delay_s * RATE))
    a = np.zeros(delay + 1)
    a[0], a[delay] = 1.0, -feedback
    out: Signal = sps.lfilter([1.0], a, x)
    return out


# --- oscillators -----------------------------------------------------------------------------


def phase_of(freq: Signal | float, frames: int) -> Signal:
    """Running phase (radians) of an instantaneous frequency curve."""
    curve = np.broadcast_to(np.asarray(freq, dtype=np.float64), (frames,))
    phase: Signal = 2 * np.pi * np.cumsum(curve) / RATE
    return phase


def sine(freq: Signal | float, frames: int, phase0: float = 0.0) -> Signal:
    out: Signal = np.sin(phase_of(freq, frames) + phase0)
    return out


def harmonics(
    freq: Signal | float, frames: int, rolloff_db: float = 6.0, count: int = 40
) -> Signal:
    """A band-limited harmonic tone whose k-th partial is k**(-rolloff/6) in amplitude (6: a
    sawtooth, 12: a glottal-like source); partials above Nyquist are left out."""
    return _partials(freq, frames, range(1, count + 1), rolloff_db)


def _partials(freq: Signal | float, frames: int, ks: range, rolloff_db: float) -> Signal:
    """Sum of sin(k * phase) * k**(-rolloff/6) over ks (every step-th harmonic), each only
    where it stays below Nyquist. sin(k x) comes from the Chebyshev recurrence
    sin((k+s)x) = 2 cos(s x) sin(k x) - sin((k-s)x): a multiply-add per harmonic, no sine."""
    curve = np.broadcast_to(np.asarray(freq, dtype=np.float64), (frames,))
    phase = phase_of(curve, frames)
    step = ks.step
    twice_cos = 2 * np.cos(step * phase)
    previous = np.sin((ks.start - step) * phase)
    current = np.sin(ks.start * phase)
    top = float(curve.max()) if frames else 0.0
    limit = RATE / 2 * 0.9
    out = np.zeros(frames)
    for k in ks:
        if k * float(curve.min()) >= limit:
            break
        weight = k ** (-rolloff_db / 6.0)
        if k * top < limit:
            out += weight * current
        else:
            out += np.where(curve * k < limit, weight * current, 0.0)
        previous, current = current, twice_cos * current - previous
    return out


def odd_harmonics(freq: Signal | float, frames: int, count: int = 20) -> Signal:
    """A band-limited square wave."""
    return _partials(freq, frames, range(1, 2 * count, 2), 6.0)


def pulses(
    freq: Signal | float, frames: int, rng: np.random.Generator, jitter: float = 0.0
) -> Signal:
    """A train of unit impulses at an instantaneous rate (Hz), each period jittered by a
    fraction `jitter`: the excitation of creaks, snores and engines."""
    curve = np.broadcast_to(np.asarray(freq, dtype=np.float64), (frames,))
    out = np.zeros(frames)
    position = 0.0
    while position < frames:
        out[int(position)] = 1.0
        rate = max(float(curve[int(position)]), 0.5)
        position += RATE / rate * (1 + jitter * rng.uniform(-1, 1))
    return out


# --- envelopes -------------------------------------------------------------------------------


def decay(frames: int, t60: float) -> Signal:
    """Exponential decay reaching -60 dB after t60 seconds."""
    out: Signal = np.exp(-6.9 * timeline(frames) / max(t60, 1e-4))
    return out


def adsr(frames: int, attack: float, release: float, curve: float = 1.0) -> Signal:
    """Rise over `attack` s, hold, fall over `release` s (raised-cosine edges, shaped by
    `curve`)."""
    env = np.ones(frames)
    rise = min(seconds(attack), frames // 2)
    fall = min(seconds(release), frames - rise)
    if rise > 0:
        env[:rise] = (1 - np.cos(np.linspace(0, np.pi, rise))) / 2
    if fall > 0:
        env[frames - fall :] *= (1 + np.cos(np.linspace(0, np.pi, fall))) / 2
    out: Signal = env**curve
    return out


def glide(frames: int, points: Sequence[float]) -> Signal:
    """A contour through `points` spaced evenly over the frames (for pitch and formants)."""
    xs = np.linspace(0, frames - 1, len(points))
    out: Signal = np.interp(np.arange(frames), xs, points)
    return out


def burst(rng: np.random.Generator, frames: int, t60: float, attack: float = 0.0005) -> Signal:
    """A noise burst with a sharp attack and exponential decay: the sound of an impact."""
    return white(rng, frames) * decay(frames, t60) * adsr(frames, attack, 0.002)


# --- modal synthesis -------------------------------------------------------------------------


def modes(
    frames: int, partials: Sequence[tuple[float, float, float]], rng: np.random.Generator
) -> Signal:
    """Struck resonant body: damped sines (Hz, t60 seconds, amplitude) with random phases."""
    t = timeline(frames)
    out = np.zeros(frames)
    for freq, t60, amp in partials:
        if freq >= RATE / 2 * 0.95:
            continue
        out += (
            amp * np.sin(2 * np.pi * freq * t + rng.uniform(0, 2 * np.pi)) * np.exp(-6.9 * t / t60)
        )
    return out * adsr(frames, 0.0005, 0.003)


# --- placing events --------------------------------------------------------------------------


def place(out: Signal, event: Signal, at: float, gain: float = 1.0) -> None:
    """Add `event` into `out` starting at `at` seconds (cut at the end)."""
    start = round(at * RATE)
    if start >= out.shape[0] or start + event.shape[0] <= 0:
        return
    skip = max(0, -start)
    start = max(0, start)
    piece = event[skip : skip + out.shape[0] - start]
    out[start : start + piece.shape[0]] += gain * piece


def poisson_times(rng: np.random.Generator, per_second: float, length: float) -> Signal:
    count = rng.poisson(max(per_second, 0.0) * length)
    return np.sort(rng.uniform(0.0, length, count))


def sprinkle(
    frames: int, times: Signal, gains: Signal, kernels: Sequence[Signal], rng: np.random.Generator
) -> Signal:
    """Many short grains at once (rain drops, crackles): each time gets one of the kernels at
    random, at its gain; one convolution per kernel instead of one placement per grain."""
    from scipy import signal as sps

    out = np.zeros(frames)
    choice = rng.integers(0, len(kernels), times.shape[0])
    starts = np.minimum(np.round(times * RATE).astype(np.int64), frames - 1)
    for index, kernel in enumerate(kernels):
        impulses = np.zeros(frames)
        np.add.at(impulses, starts[choice == index], gains[choice == index])
        out += sps.fftconvolve(impulses, kernel)[:frames]
    return out


def series(
    rng: np.random.Generator, length: float, first: tuple[float, float], gap: tuple[float, float]
) -> list[float]:
    """Start times from `first` on, one every `gap` seconds (uniform ranges), within length."""
    times = []
    at = rng.uniform(*first)
    while at < length:
        times.append(float(at))
        at += rng.uniform(*gap)
    return times


# --- space and level -------------------------------------------------------------------------


def impulse_response(rng: np.random.Generator, t60: float, predelay: float = 0.01) -> Signal:
    """A diffuse room response: exponentially decaying noise, darker as it decays."""
    frames = seconds(t60 * 1.1)
    tail = white(rng, frames) * decay(frames, t60)
    # Air and walls absorb highs faster than lows.
    tail = 0.5 * tail + 0.5 * lowpass(tail, 3000)
    out = np.zeros(seconds(predelay) + frames)
    out[seconds(predelay) :] = tail
    normalized: Signal = out / np.sqrt(np.sum(out**2))
    return normalized


def convolve(x: Signal, response: Signal) -> Signal:
    from scipy import signal as sps

    out: Signal = sps.fftconvolve(x, response)[: x.shape[0]]
    return out


def unit(x: Signal) -> Signal:
    """Scaled to unit RMS (silence stays silent)."""
    level = float(np.sqrt(np.mean(x**2))) if x.size else 0.0
    return x / level if level > 0 else x


def peak(x: Signal) -> float:
    return float(np.max(np.abs(x))) if x.size else 0.0


def normalized(x: Signal, to: float = 1.0) -> Signal:
    top = peak(x)
    return x * (to / top) if top > 0 else x


def db(gain_db: float) -> float:
    return float(10 ** (gain_db / 20))


def fit(x: Signal, frames: int) -> Signal:
    """Cut or zero-pad to exactly `frames`."""
    if x.shape[0] >= frames:
        return x[:frames]
    return np.concatenate([x, np.zeros(frames - x.shape[0])])


def fade(x: Signal, fade_in: float = 0.005, fade_out: float = 0.02) -> Signal:
    return x * adsr(x.shape[0], fade_in, fade_out)


def saturate(x: Signal, drive: float) -> Signal:
    """Soft clipping (tanh) at `drive`, level kept: the roughness of engines and horns."""
    out: Signal = np.tanh(drive * x) / np.tanh(drive)
    return out
