"""Rendering a scene: each element's recipe at a common loudness, steered (level, distance,
muffling, metallic ring, room), panned into stereo, layered, and kept clear of clipping.
Everything random comes from the seed, so a seed gives the same samples every time."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

import numpy as np

from soundstage.engines.sound import dsp
from soundstage.engines.sound.dsp import RATE, Signal
from soundstage.engines.sound.interpret import Element
from soundstage.engines.sound.recipes import Recipe, Take
from soundstage.engines.sound.steering import Steering
from soundstage.media.audio import Audio

# Each element is brought to this level (RMS of its loudest 50 ms) before steering, with its
# peak at most ELEMENT_PEAK; the mix's peak is kept at or below MASTER_PEAK (-1 dBFS).
TARGET_RMS: Final = dsp.db(-15.0)
ELEMENT_PEAK: Final = dsp.db(-3.0)
MASTER_PEAK: Final = dsp.db(-1.0)
# Layers after the first sit a little behind it.
BACKGROUND_DB: Final = -3.0
_WINDOW: Final = 2205  # 50 ms


def render(elements: Sequence[Element], duration_seconds: int, seed: int) -> Audio:
    """The scene as stereo float32 audio of exactly `duration_seconds` at 44.1 kHz."""
    frames = duration_seconds * RATE
    takes: list[tuple[list[Signal], np.random.Generator]] = []
    for index, element in enumerate(elements):
        rng = np.random.default_rng([seed, index])
        steering = element.steering
        channels = _blended(element, index, rng, duration_seconds, seed)
        gain = level_gain(channels) * dsp.db(layer_gain_db(index, steering))
        channels = [channel * gain for channel in channels]
        if element.after_previous and takes:
            previous, previous_rng = takes[-1]
            previous, channels = in_sequence(previous, channels)
            takes[-1] = (previous, previous_rng)
        takes.append((channels, rng))
    mix = np.zeros((frames, 2))
    for index, (element, (channels, rng)) in enumerate(zip(elements, takes, strict=True)):
        pan = 0.0 if index == 0 else float(rng.uniform(-0.4, 0.4))
        mix += placed(channels, element.steering, pan, rng)
    top = float(np.max(np.abs(mix))) if mix.size else 0.0
    if top > MASTER_PEAK:
        mix *= MASTER_PEAK / top
    # A click-free end however the recipe's events fall.
    mix *= dsp.adsr(frames, 0.003, 0.015)[:, None]
    return Audio(np.ascontiguousarray(mix, dtype=np.float32), RATE)


def layer_gain_db(index: int, steering: Steering) -> float:
    """A layer's level against the scene's common loudness: its adjectives, and 3 dB behind
    the first for every later layer."""
    return steering.gain_db + (BACKGROUND_DB if index else 0.0)


def _blended(
    element: Element, index: int, rng: np.random.Generator, duration_seconds: int, seed: int
) -> list[Signal]:
    """An element's sound before its level is set: one channel (a source) or two (a wide
    ambience, a take each). A blend is its recipes each at the common loudness, weighted;
    its first recipe draws from the element's own generator, the others from their own."""
    frames = duration_seconds * RATE
    mix = element.mix
    wide = any(recipe.wide for recipe, _ in mix)
    out: list[Signal] = []
    for part, (recipe, weight) in enumerate(mix):
        first = rng if part == 0 else np.random.default_rng([seed, index, 1 + part])
        rngs = [
            first,
            np.random.default_rng([seed, index, 1] if part == 0 else [seed, index, 1 + part, 1]),
        ]
        channels = [
            # Below 20 Hz is drift, not sound (brown noise has plenty): it eats headroom.
            dsp.highpass(
                dsp.fit(_rendered(recipe, r, duration_seconds, element.steering), frames), 20
            )
            for r in rngs[: 2 if recipe.wide else 1]
        ]
        if len(mix) == 1:
            return channels
        if wide and len(channels) == 1:
            channels = channels * 2  # a source within an ambience: the same on both sides
        gain = level_gain(channels) * weight
        out = (
            [c * gain for c in channels]
            if not out
            else [o + c * gain for o, c in zip(out, channels, strict=True)]
        )
    return out


def shares(elements: Sequence[Element]) -> list[tuple[int, Recipe, float]]:
    """Every recipe the scene is made of, as (layer, recipe, share of the mix's level), the
    largest share first; the shares sum to 1. A layer's share follows its level (adjectives,
    3 dB behind for later layers), split among its recipes by their blend weights."""
    levels = [dsp.db(layer_gain_db(i, e.steering)) for i, e in enumerate(elements)]
    total = sum(levels) or 1.0
    used = [
        (index, recipe, level / total * weight)
        for index, (element, level) in enumerate(zip(elements, levels, strict=True))
        for recipe, weight in element.mix
    ]
    return sorted(used, key=lambda item: -item[2])


def _rendered(
    recipe: Recipe, rng: np.random.Generator, duration_seconds: int, steering: Steering
) -> Signal:
    """The recipe's take; a deep one is rendered shorter and slowed down to the full length,
    which lowers every pitch and resonance by the same ratio (a fourth)."""
    if steering.pitch == 1.0:
        return recipe.render(Take(rng, float(duration_seconds), steering.intensity, steering.span))
    from scipy import signal as sps  # imported where used: an API process never renders

    ratio = Fraction(steering.pitch).limit_denominator(16)
    take = Take(rng, duration_seconds * steering.pitch, steering.intensity, steering.span)
    slowed: Signal = sps.resample_poly(recipe.render(take), ratio.denominator, ratio.numerator)
    return slowed


def in_sequence(first: list[Signal], second: list[Signal]) -> tuple[list[Signal], list[Signal]]:
    """ "A then B": B starts when A's first sound has ended, and A stops there. A sound that
    never pauses (rain) goes on, and B comes in after a third of the scene (2 s at most)."""
    frames = first[0].shape[0]
    end = first_sound_end(np.mean(first, axis=0))
    if end is None:
        start = min(2 * RATE, frames // 3)
    else:
        start = end
        first = [np.concatenate([channel[:end], np.zeros(frames - end)]) for channel in first]
    later = [np.concatenate([np.zeros(start), channel])[:frames] for channel in second]
    return first, later


def first_sound_end(x: Signal) -> int | None:
    """The frame where the first sound has died away (more than 30 dB under the loudest 10 ms
    for at least 300 ms), or None if it never does within the first half."""
    window = RATE // 100
    usable = x.shape[0] // window * window
    level = np.sqrt(np.mean(x[:usable].reshape(-1, window) ** 2, axis=1))
    if level.size == 0 or level.max() == 0:
        return None
    loud = level > level.max() * dsp.db(-30.0)
    onset = int(np.argmax(loud))
    quiet_run = 0
    for position in range(onset, min(level.size, level.size // 2 + 30)):
        quiet_run = 0 if loud[position] else quiet_run + 1
        if quiet_run == 30:
            return (position - 29) * window
    return None


def level_gain(channels: list[Signal]) -> float:
    """The gain that puts the loudest 50 ms at TARGET_RMS, its peak at most ELEMENT_PEAK."""
    usable = channels[0].shape[0] // _WINDOW * _WINDOW
    if usable == 0:
        return 1.0
    windows = np.stack([channel[:usable].reshape(-1, _WINDOW) for channel in channels])
    loudest = float(np.sqrt(np.max(np.mean(windows**2, axis=(0, 2)))))
    top = max(dsp.peak(channel) for channel in channels)
    if loudest == 0 or top == 0:
        return 1.0
    return min(TARGET_RMS / loudest, ELEMENT_PEAK / top)


def placed(
    channels: list[Signal], steering: Steering, pan: float, rng: np.random.Generator
) -> Signal:
    """An element (a mono source, or a wide pair) put in its space: stereo (frames, 2)."""
    ring = metal_ring(rng) if steering.has("metallic") else None
    coloured = [_coloured(channel, steering, ring) for channel in channels]
    if len(coloured) == 2:
        direct = np.stack(coloured, axis=1)
    else:
        left, right = np.cos((pan + 1) * np.pi / 4), np.sin((pan + 1) * np.pi / 4)
        direct = np.stack([coloured[0] * left, coloured[0] * right], axis=1) * np.sqrt(2)
    room = _room(steering)
    if room is None:
        return np.asarray(direct, dtype=np.float64)
    t60, wet = room
    source = np.mean(coloured, axis=0)
    echoes = [
        dsp.convolve(source, dsp.impulse_response(rng, t60, 0.012 + 0.006 * side))
        for side in (0, 1)
    ]
    out: Signal = direct * (1 - wet / 2) + np.stack(echoes, axis=1) * wet
    return out


def _coloured(x: Signal, steering: Steering, ring: Signal | None) -> Signal:
    """The steering that changes the sound itself: metal, muffling, brightness, distance,
    proximity."""
    if ring is not None:
        x = x + 0.8 * dsp.convolve(x, ring)
    if steering.has("muffled"):
        x = dsp.lowpass(x, 500, order=4)
    if steering.has("bright"):
        x = x + dsp.highpass(x, 3000)  # about +6 dB above 3 kHz
    if steering.has("distant"):
        # Air absorbs the highs; more of what reaches us is reflected sound.
        x = dsp.lowpass(x, 2500)
    elif steering.has("close"):
        x = x + dsp.lowpass(x, 300)  # proximity effect: about +6 dB of low end
    return x


def _room(steering: Steering) -> tuple[float, float] | None:
    """(t60 seconds, wet level) of the space around the element, or None for dry."""
    if steering.has("indoor"):
        return (1.4, 0.7) if steering.has("distant") else (0.7, 0.35)
    if steering.has("outdoor"):
        return (1.8, 0.35) if steering.has("distant") else (1.2, 0.08)
    if steering.has("distant"):
        return 1.5, 0.5
    return None


def metal_ring(rng: np.random.Generator) -> Signal:
    """The response of a thin metal sheet (a tin roof, a pipe): inharmonic modes ringing for a
    few tenths of a second."""
    base = float(rng.uniform(500, 900))
    ratios = (1.0, 1.59, 2.14, 2.65, 3.16, 3.65, 4.06, 5.2, 6.7)
    partials = [
        (base * r, float(rng.uniform(0.15, 0.45)), 1 / (1 + i)) for i, r in enumerate(ratios)
    ]
    ring = dsp.modes(dsp.seconds(0.5), partials, rng)
    scaled: Signal = ring / np.sqrt(np.sum(ring**2))
    return scaled
