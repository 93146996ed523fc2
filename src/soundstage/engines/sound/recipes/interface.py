"""Interface and game sounds (beyond ESC-50): UI click, UI beep, notification chime, coin
pickup, power-up, error buzz, level up. Clean sines and bell partials for apps; band-limited
square waves stepping through notes, as 8-bit game consoles play them, for games."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from soundstage.engines.sound import dsp
from soundstage.engines.sound.dsp import Signal
from soundstage.engines.sound.recipes.base import Take, recipe


def chip(pitch: Signal | float, frames: int, duty_harmonics: int = 12) -> Signal:
    """A retro console's pulse voice: a band-limited square wave."""
    return dsp.odd_harmonics(pitch, frames, duty_harmonics)


def notes(pitches: Sequence[float], step: float, last: float, release: float) -> Signal:
    """Square-wave notes one after the other, each `step` seconds, the last held `last`
    seconds and fading over `release`."""
    parts = []
    for index, pitch in enumerate(pitches):
        final = index == len(pitches) - 1
        frames = dsp.seconds(last if final else step)
        env = dsp.decay(frames, last * 1.5) if final else np.ones(frames)
        parts.append(
            chip(pitch, frames) * env * dsp.adsr(frames, 0.002, release if final else 0.004)
        )
    return np.concatenate(parts)


def bell_tone(rng: np.random.Generator, pitch: float, ring: float) -> Signal:
    """A small struck bell or glass: a strong fundamental, its octave and an inharmonic
    partial, the higher ones dying sooner."""
    partials = [
        (pitch, ring, 1.0),
        (pitch * 2.0, ring * 0.5, 0.35),
        (pitch * 2.76, ring * 0.3, 0.2),
    ]
    return dsp.modes(dsp.seconds(ring), partials, rng)


@recipe(
    "ui_click",
    "UI click",
    "interface",
    "a user interface click",
    "a button tap sound",
    "a soft app click",
    "a menu select tick",
    esc50=False,
)
def ui_click(take: Take) -> Signal:
    out = take.silence()
    pitch = take.uniform(1800, 3000)
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), (0.8, 1.5)):
        frames = dsp.seconds(0.02 * take.span)
        click = dsp.sine(dsp.glide(frames, [pitch * 1.3, pitch]), frames) * dsp.decay(frames, 0.015)
        dsp.place(out, click * dsp.adsr(frames, 0.0005, 0.004), at)
    return out


@recipe(
    "ui_beep",
    "UI beep",
    "interface",
    "a beep",
    "an electronic notification beep",
    "a microwave beep",
    esc50=False,
)
def ui_beep(take: Take) -> Signal:
    out = take.silence()
    pitch = take.uniform(800, 1200)
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), (1.0, 1.8)):
        for note, step in enumerate((1.0, 1.5) if take.rng.random() < 0.5 else (1.0,)):
            frames = dsp.seconds(0.15 * take.span)
            beep = dsp.sine(pitch * step, frames) + 0.1 * dsp.sine(pitch * step * 2, frames)
            dsp.place(out, beep * dsp.adsr(frames, 0.005, 0.03), at + note * 0.17)
    return out


@recipe(
    "notification_chime",
    "Notification chime",
    "interface",
    "a notification chime",
    "a message alert ding",
    "a confirmation chime",
    "an incoming message ping on a phone",
    "a pleasant two-tone ding",
    esc50=False,
)
def notification_chime(take: Take) -> Signal:
    out = take.silence()
    pitch = take.uniform(880, 1320)
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), (1.8, 2.8)):
        # Up a major third or a fifth, the second tone ringing longer.
        for note, (step, ring) in enumerate(((1.0, 0.5), (take.uniform(1.25, 1.5), 1.0))):
            tone = bell_tone(take.rng, pitch * step, ring * take.span)
            dsp.place(out, dsp.normalized(tone), at + note * 0.13 * take.span, 0.8 + 0.2 * note)
    return out


@recipe(
    "coin_pickup",
    "Coin pickup",
    "interface",
    "a video game coin pickup",
    "collecting a coin in a platform game",
    "an arcade coin collect sound",
    "a retro game item pickup bling",
    esc50=False,
)
def coin_pickup(take: Take) -> Signal:
    out = take.silence()
    base = take.uniform(900, 1050)
    gap = (0.7 / take.intensity, 1.4 / take.intensity)
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), gap):
        # A short note and a fourth above it, ringing out: ba-ding.
        coin = notes([base, base * 4 / 3], 0.07 * take.span, 0.35 * take.span, 0.05)
        dsp.place(out, dsp.normalized(coin), at, take.uniform(0.85, 1.0))
    return out


@recipe(
    "power_up",
    "Power-up",
    "interface",
    "a video game power-up",
    "grabbing a power up in an arcade game",
    "a rising retro bonus sound",
    "an 8-bit upgrade sound",
    esc50=False,
)
def power_up(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), (1.6, 2.6)):
        length = take.uniform(0.6, 0.8) * take.span
        frames = dsp.seconds(length)
        t = dsp.timeline(frames)
        # Climbing two octaves in stairs of a 30th of a second, with a fast warble.
        base = take.uniform(200, 300)
        stairs = np.floor(t * 30) / (30 * length)
        pitch = base * 4**stairs * (1 + 0.04 * np.sign(np.sin(2 * np.pi * 15 * t)))
        sound = chip(pitch, frames) * dsp.adsr(frames, 0.005, 0.08)
        dsp.place(out, dsp.normalized(sound), at)
    return out


@recipe(
    "error_buzz",
    "Error buzz",
    "interface",
    "an error buzzer",
    "a wrong answer buzz on a game show",
    "an access denied sound",
    "a harsh rejection buzz",
    esc50=False,
)
def error_buzz(take: Take) -> Signal:
    out = take.silence()
    pitch = take.uniform(100, 140)
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), (1.4, 2.4)):
        for buzz in range(2):
            frames = dsp.seconds(0.2 * take.span)
            # Two sawtooths a semitone apart beat against each other: the rasp of "no".
            tone = dsp.harmonics(pitch, frames, 6.0, 60) + dsp.harmonics(
                pitch * 1.06, frames, 6.0, 60
            )
            tone = dsp.saturate(dsp.bandpass(tone, 150, 3500), 2.0)
            dsp.place(out, dsp.normalized(tone * dsp.adsr(frames, 0.004, 0.02)), at + buzz * 0.26)
    return out


@recipe(
    "level_up",
    "Level up",
    "interface",
    "a level up jingle",
    "a video game level complete fanfare",
    "an achievement unlocked sound",
    "a victory tune in a retro game",
    esc50=False,
)
def level_up(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), (2.4, 3.4)):
        root = take.uniform(480, 560)
        # A major arpeggio up to the octave, the octave held, an octave-up echo sparkling.
        scale = [1.0, 1.26, 1.5, 2.0]
        tune = notes([root * s for s in scale], 0.09 * take.span, 0.6 * take.span, 0.2)
        sparkle = notes([root * s * 2 for s in scale], 0.09 * take.span, 0.6 * take.span, 0.2)
        dsp.place(out, dsp.normalized(tune + 0.25 * sparkle), at)
    return out
