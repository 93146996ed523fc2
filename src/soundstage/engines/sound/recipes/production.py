"""Production effects (beyond ESC-50): whoosh, riser, impact, explosion, braam. Swept noise
and tones, sub-bass drops, shaped transients and saturated brass stacks."""

from __future__ import annotations

import numpy as np

from soundstage.engines.sound import dsp
from soundstage.engines.sound.dsp import Signal
from soundstage.engines.sound.recipes.base import Take, recipe


@recipe(
    "whoosh",
    "Whoosh",
    "production",
    "a whoosh",
    "a swoosh of something flying past",
    "a fast swish transition",
    "air swoosh",
    "something whizzing past",
    esc50=False,
)
def whoosh(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.05, 0.3), (2.0, 3.5)):
        length = take.uniform(0.6, 1.0) * take.span
        frames = dsp.seconds(length)
        centre = dsp.glide(frames, [300, take.uniform(2000, 3500), 400])
        swish = dsp.sweep(dsp.pink(take.rng, frames), centre, 1.6)
        swell = np.sin(np.pi * np.linspace(0, 1, frames)) ** 3
        dsp.place(out, dsp.normalized(swish * swell), at)
    return out


@recipe(
    "riser",
    "Riser",
    "production",
    "a riser building tension",
    "a rising sweep before the drop",
    "an uplifter swelling up",
    esc50=False,
)
def riser(take: Take) -> Signal:
    frames = take.frames
    progress = np.linspace(0, 1, frames)
    noise = dsp.sweep(dsp.white(take.rng, frames), 200 * 40**progress, 1.2)
    pitch = 110 * 8**progress
    tone = sum(dsp.harmonics(pitch * detune, frames, 6.0, 12) for detune in (0.995, 1.0, 1.006))
    swell = progress**2 * dsp.adsr(frames, 0.01, 0.03)
    return (dsp.unit(noise) + 0.5 * dsp.unit(np.asarray(tone))) * swell


@recipe(
    "impact",
    "Impact",
    "production",
    "a cinematic impact",
    "a heavy hit",
    "a trailer boom",
    "a punchy thud",
    esc50=False,
)
def impact(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), (3.0, 5.0)):
        length = 2.0 * take.span
        frames = dsp.seconds(length)
        boom = dsp.sine(dsp.glide(frames, [take.uniform(70, 90), 45, 35]), frames) * dsp.decay(
            frames, length
        )
        crack = dsp.lowpass(dsp.burst(take.rng, frames, 0.25), 6000)
        hit = dsp.saturate(boom + 0.6 * dsp.normalized(crack), 1.8)
        hit = hit + 0.3 * dsp.convolve(hit, dsp.impulse_response(take.rng, 1.8, 0.02))
        dsp.place(out, dsp.normalized(hit), at)
    return out


@recipe(
    "explosion",
    "Explosion",
    "production",
    "an explosion",
    "a bomb blast",
    "a huge detonation with debris",
    "a grenade going off",
    esc50=False,
)
def explosion(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), (5.0, 8.0)):
        length = 3.5 * take.span
        frames = dsp.seconds(length)
        blast = dsp.burst(take.rng, frames, length * 0.5)
        body = dsp.sweep(blast, dsp.glide(frames, [6000, 800, 300]), 0.7, "lowpass")
        sub = dsp.sine(dsp.glide(frames, [55, 30]), frames) * dsp.decay(frames, length * 0.6)
        rumble = dsp.lowpass(dsp.brown(take.rng, frames), 120) * dsp.decay(frames, length)
        hit = dsp.saturate(dsp.normalized(body) + 0.8 * sub + 0.5 * dsp.normalized(rumble), 2.5)
        for debris in dsp.poisson_times(take.rng, 30, length * 0.6):
            chip = dsp.highpass(dsp.burst(take.rng, 300, 0.003), 1500)
            dsp.place(hit, chip, 0.3 + debris, 0.1)
        dsp.place(out, dsp.normalized(hit), at)
    return out


@recipe(
    "braam",
    "Braam",
    "production",
    "a braam",
    "a massive low brass blast for a movie trailer",
    "an Inception-style horn hit",
    "a huge distorted brass swell",
    esc50=False,
)
def braam(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), (4.0, 6.0)):
        length = take.uniform(2.5, 3.5) * take.span
        frames = dsp.seconds(length)
        root = take.uniform(41, 55)
        # Low brass: a root, its fifth and octave, each a detuned pair of bright sawtooths.
        stack = sum(
            dsp.harmonics(root * step * detune, frames, 5.0, 80)
            for step in (1.0, 1.5, 2.0)
            for detune in (0.997, 1.003)
        )
        # The filter opens as the players blow harder, then closes as they fade.
        cutoff = dsp.glide(frames, [200, 1600 * take.intensity, 900, 300])
        brass = dsp.sweep(np.asarray(stack), cutoff, 1.2, "lowpass")
        brass = dsp.saturate(dsp.unit(brass), 3.0) * dsp.adsr(frames, 0.06, length * 0.5)
        sub = dsp.sine(root, frames) * dsp.adsr(frames, 0.03, length * 0.5)
        hit = brass + 0.6 * sub
        hit = hit + 0.3 * dsp.convolve(hit, dsp.impulse_response(take.rng, 2.5, 0.03))
        dsp.place(out, dsp.normalized(hit), at)
    return out
