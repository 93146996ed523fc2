"""Interior and domestic sounds (ESC-50): door knock, mouse click, keyboard typing, door
creaks, can opening, washing machine, vacuum cleaner, clock alarm, clock tick, glass breaking.
Struck bodies are modal resonators; machines are harmonic motors over filtered noise. Beyond
ESC-50: a telephone ringing (General MIDI)."""

from __future__ import annotations

import numpy as np

from soundstage.engines.sound import dsp, gm
from soundstage.engines.sound.dsp import Signal
from soundstage.engines.sound.recipes.base import Take, recipe


def knock(rng: np.random.Generator, panel: float) -> Signal:
    """A knuckle on a wooden panel: a few low, quickly damped modes and the contact click."""
    frames = dsp.seconds(0.25)
    body = dsp.modes(
        frames,
        [
            (panel, 0.09, 1.0),
            (panel * 2.3, 0.05, 0.6),
            (panel * 3.9, 0.03, 0.35),
            (panel * 6.1, 0.02, 0.2),
        ],
        rng,
    )
    click = dsp.bandpass(dsp.burst(rng, frames, 0.006), 1500, 6000)
    return dsp.normalized(body + 0.5 * dsp.normalized(click))


@recipe(
    "door_wood_knock",
    "Knocking on a wooden door",
    "domestic",
    "knocking on a wooden door",
    "a knock at the door",
    "someone knocks three times",
    "rapping on wood",
)
def door_wood_knock(take: Take) -> Signal:
    out = take.silence()
    panel = take.uniform(170, 260)
    for start in dsp.series(take.rng, take.length, (0.1, 0.4), (2.0, 3.5)):
        for i in range(int(take.rng.integers(2, 5))):
            dsp.place(
                out,
                knock(take.rng, panel * take.uniform(0.97, 1.03)),
                start + i * take.uniform(0.16, 0.22),
                take.uniform(0.75, 1.0) * take.intensity,
            )
    room = dsp.impulse_response(take.rng, 0.5)
    return out + 0.25 * dsp.convolve(out, room)


def tick(rng: np.random.Generator, pitch: float, length: float = 0.03) -> Signal:
    """A small plastic or metal click: a very short, bright resonant transient."""
    frames = dsp.seconds(length)
    partials = [
        (pitch, length * 0.5, 1.0),
        (pitch * 1.6, length * 0.3, 0.6),
        (pitch * 2.7, length * 0.2, 0.4),
    ]
    return dsp.normalized(dsp.modes(frames, partials, rng) + 0.4 * dsp.burst(rng, frames, 0.002))


@recipe(
    "mouse_click",
    "Mouse clicking",
    "domestic",
    "a computer mouse clicking",
    "mouse clicks",
    "clicking a mouse button",
    "double click",
)
def mouse_click(take: Take) -> Signal:
    out = take.silence()
    pitch = take.uniform(2500, 4000)
    for at in dsp.series(take.rng, take.length, (0.1, 0.5), (0.45, 1.3)):
        for press in range(1 if take.rng.random() < 0.6 else 2):
            when = at + press * 0.14
            dsp.place(out, tick(take.rng, pitch, 0.012), when, 1.0)
            dsp.place(out, tick(take.rng, pitch * 1.2, 0.01), when + take.uniform(0.06, 0.09), 0.5)
    return out


@recipe(
    "keyboard_typing",
    "Keyboard typing",
    "domestic",
    "typing on a keyboard",
    "someone typing fast on a computer",
    "keys clacking on a laptop",
    "a mechanical keyboard",
)
def keyboard_typing(take: Take) -> Signal:
    out = take.silence()
    at = take.uniform(0.0, 0.2)
    while at < take.length:
        space = take.rng.random() < 0.12
        pitch = take.uniform(900, 1300) if space else take.uniform(1800, 4200)
        frames = dsp.seconds(0.05)
        down = dsp.modes(frames, [(pitch, 0.02, 1.0), (pitch * 2.2, 0.012, 0.5)], take.rng)
        down += dsp.bandpass(dsp.burst(take.rng, frames, 0.004), 1000, 8000)
        dsp.place(out, dsp.normalized(down), at, take.uniform(0.5, 1.0))
        dsp.place(out, dsp.normalized(down[::-1] * dsp.decay(frames, 0.01)), at + 0.07, 0.15)
        # Typists type in bursts: short gaps within words, longer between them.
        at += (
            take.uniform(0.07, 0.16) / take.intensity
            if take.rng.random() < 0.85
            else take.uniform(0.3, 0.6)
        )
    return out


@recipe(
    "door_wood_creaks",
    "Creaking door",
    "domestic",
    "a creaking door",
    "a squeaky wooden door opening slowly",
    "creaky hinges",
    "floorboards creaking",
)
def door_wood_creaks(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.1, 0.4), (2.2, 3.5)):
        # Stick-slip friction: a pulse train of wandering rate exciting the wood's modes.
        frames = dsp.seconds(take.uniform(1.2, 2.0) * take.span)
        rate = dsp.glide(
            frames, [take.uniform(40, 70), take.uniform(150, 250), take.uniform(60, 120)]
        )
        rate *= 1 + 0.25 * dsp.smooth_random(take.rng, frames, 6.0)
        stick = dsp.pulses(rate, frames, take.rng, jitter=0.08)
        body = dsp.formants(
            stick, [(420, 40, 1.0), (980, 70, 0.7), (1900, 120, 0.5), (3100, 200, 0.3)]
        )
        dsp.place(out, dsp.normalized(body * dsp.adsr(frames, 0.15, 0.2)), at)
    return out


@recipe(
    "can_opening",
    "Can opening",
    "domestic",
    "opening a can of soda",
    "a soda can pop and fizz",
    "cracking open a beer can",
    "a ring pull snapping open",
)
def can_opening(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.2, 0.5), (4.0, 6.0)):
        frames = dsp.seconds(0.3)
        tab = dsp.modes(frames, [(2100, 0.06, 1.0), (3400, 0.05, 0.7), (5600, 0.03, 0.5)], take.rng)
        dsp.place(out, dsp.normalized(tab + dsp.burst(take.rng, frames, 0.004)), at, 0.9)
        fizz_length = take.uniform(1.0, 1.8) * take.span
        hiss_frames = dsp.seconds(fizz_length)
        hiss = dsp.highpass(dsp.white(take.rng, hiss_frames), 3500) * dsp.decay(
            hiss_frames, fizz_length
        )
        dsp.place(out, 0.6 * hiss * dsp.adsr(hiss_frames, 0.005, 0.1), at + 0.02)
        for pop in dsp.poisson_times(take.rng, 60, fizz_length):
            dsp.place(
                out,
                dsp.highpass(dsp.burst(take.rng, 200, 0.001), 4000),
                at + 0.05 + pop,
                0.3 * np.exp(-pop / fizz_length * 2),
            )
    return out


def motor(take: Take, hum: float, harmonics: int = 12) -> Signal:
    frames = take.frames
    speed = hum * (1 + 0.01 * dsp.smooth_random(take.rng, frames, 2.0))
    return dsp.harmonics(speed, frames, 6.0, harmonics)


@recipe(
    "washing_machine",
    "Washing machine",
    "domestic",
    "a washing machine running",
    "a washer tumbling clothes",
    "a laundry machine spin cycle",
)
def washing_machine(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    turn = take.uniform(0.7, 1.1)  # drum turns a second
    slosh = (
        dsp.lowpass(dsp.pink(take.rng, frames), 1200)
        * (0.6 + 0.4 * np.sin(2 * np.pi * turn * t)) ** 2
    )
    thumps = take.silence()
    for at in np.arange(take.uniform(0, 1 / turn), take.length, 1 / turn):
        dsp.place(
            thumps, dsp.lowpass(dsp.burst(take.rng, dsp.seconds(0.15), 0.1), 250), float(at), 1.5
        )
    hum = motor(take, take.uniform(48, 60)) * 0.4
    whine = dsp.sine(take.uniform(900, 1300), frames) * 0.05
    return (slosh + thumps + hum + whine) * dsp.adsr(frames, 0.3, 0.3)


@recipe(
    "vacuum_cleaner",
    "Vacuum cleaner",
    "domestic",
    "a vacuum cleaner running",
    "hoovering the carpet",
    "a hoover switched on",
)
def vacuum_cleaner(take: Take) -> Signal:
    frames = take.frames
    air = dsp.bandpass(dsp.pink(take.rng, frames), 300, 9000)
    air = air + 0.5 * dsp.resonate(air, take.uniform(1500, 2500), 2.0)
    whine = motor(take, take.uniform(380, 520), 10)
    # Pushed back and forth: the pitch and breath change with the load.
    load = 1 + 0.08 * np.sin(2 * np.pi * take.uniform(0.4, 0.7) * dsp.timeline(frames))
    return (dsp.unit(air) * load + 0.35 * dsp.unit(whine)) * dsp.adsr(frames, 0.4, 0.4)


@recipe(
    "clock_alarm",
    "Alarm clock ringing",
    "domestic",
    "an alarm clock ringing",
    "an old bell alarm clock going off",
    "a wake-up alarm",
)
def clock_alarm(take: Take) -> Signal:
    out = take.silence()
    bells = [take.uniform(2200, 2600), take.uniform(2900, 3300)]
    strike_rate = take.uniform(16, 22)
    frames = dsp.seconds(0.25)
    strikes = [
        dsp.modes(frames, [(b, 0.2, 1.0), (b * 2.76, 0.1, 0.6), (b * 5.4, 0.05, 0.35)], take.rng)
        for b in bells
    ]
    for start in dsp.series(take.rng, take.length, (0.05, 0.2), (2.2, 2.8)):
        ring = 1.6 * take.span
        for i, at in enumerate(np.arange(start, start + ring, 1 / strike_rate)):
            dsp.place(out, strikes[i % 2], float(at), take.uniform(0.7, 1.0))
    return out


@recipe(
    "clock_tick",
    "Clock ticking",
    "domestic",
    "a clock ticking",
    "tick tock of a wall clock",
    "a ticking watch",
    "a pendulum clock",
)
def clock_tick(take: Take) -> Signal:
    out = take.silence()
    pitch = take.uniform(2500, 4500)
    period = take.uniform(0.48, 0.52) if take.rng.random() < 0.5 else 1.0
    for index, at in enumerate(np.arange(take.uniform(0.05, 0.3), take.length, period)):
        dsp.place(
            out,
            tick(take.rng, pitch * (1.0 if index % 2 else 0.8), 0.04),
            float(at),
            1.0 if index % 2 else 0.8,
        )
    return out


@recipe(
    "glass_breaking",
    "Glass breaking",
    "domestic",
    "glass breaking",
    "a window shattering",
    "a wine glass smashing on the floor",
    "shards of glass falling",
)
def glass_breaking(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.05, 0.3), (4.5, 7.0)):
        crash = dsp.highpass(dsp.burst(take.rng, dsp.seconds(0.3), 0.15), 1500)
        dsp.place(out, dsp.normalized(crash), at, 1.0)
        # Shards: bright, ringing pieces falling and bouncing, fewer and fewer.
        span = take.uniform(0.8, 1.4) * take.span
        for shard in dsp.poisson_times(take.rng, 70 * take.intensity, span):
            frames = dsp.seconds(0.25)
            pitch = take.uniform(2500, 9000)
            ring = dsp.modes(
                frames,
                [
                    (pitch, take.uniform(0.05, 0.2), 1.0),
                    (pitch * 1.52, 0.06, 0.5),
                    (pitch * 2.3, 0.04, 0.3),
                ],
                take.rng,
            )
            dsp.place(
                out, ring, at + shard**1.3, take.uniform(0.1, 0.6) * (1 - shard / span) + 0.05
            )
    return out


@recipe(
    "telephone",
    "Telephone ringing",
    "domestic",
    "a telephone ringing",
    "an old landline phone ringing",
    "the phone is ringing",
    esc50=False,
)
def telephone(take: Take) -> Signal:
    # General MIDI program 124 (Telephone Ring): a recorded bell ringer, rung in the usual
    # cadence of about two seconds on, four off.
    key = int(take.rng.integers(58, 66))
    ring = 1.8 * take.span
    notes = [
        gm.Note(at, key, int(take.rng.integers(100, 121)), ring)
        for at in dsp.series(take.rng, take.length, (0.05, 0.3), (ring + 2.0, ring + 2.6))
    ]
    return gm.play(124, notes, take.length)
