"""Sound-effect generation time per 5 s effect: POST /api/v1/creative/sound (served by
`soundstage serve` with its embedded worker) against, in the same run, (a) the bare generator
in this process (prompt matching with the model already loaded, then rendering; no HTTP, job,
encoding or storage) and (b) FluidSynth playing 5 s of a General MIDI sound-effect program
(seashore, bird tweet, helicopter, applause, gunshot): a sample-playback engine as yardstick.

    .venv/bin/python bench/sound_effects.py [--runs 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from _service import served

SECONDS = 5
PROMPTS = (
    "a dog barking in the distance",
    "heavy rain on a tin roof with distant thunder",
    "ocean waves crashing on the shore",
    "a crackling campfire with crickets outside",
    "a baby crying",
    "footsteps in a hallway indoors",
    "a clock ticking",
    "glass breaking",
    "a police siren wailing",
    "a helicopter flying overhead",
    "church bells ringing",
    "a cinematic whoosh and impact",
)
SOUNDFONT = Path("/usr/share/sounds/sf2/FluidR3_GM.sf2")
GM_EFFECTS = (122, 123, 125, 126, 127)  # seashore, bird tweet, helicopter, applause, gunshot


def fluidsynth_effect(program: int) -> float:
    """Seconds to render 5 s of a GM effect program (the soundfont already loaded)."""
    import fluidsynth

    synth = fluidsynth.Synth(samplerate=44_100.0)
    font = synth.sfload(str(SOUNDFONT))
    synth.program_select(0, font, 0, program)
    start = time.perf_counter()
    synth.noteon(0, 60, 100)
    samples = np.asarray(synth.get_samples(SECONDS * 44_100), dtype=np.int16)
    elapsed = time.perf_counter() - start
    synth.delete()
    assert samples.shape[0] == SECONDS * 44_100 * 2
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    service: list[float] = []
    with served(credits=150 * (len(PROMPTS) * args.runs + 1)) as (client, _):
        body = {"prompt": "a beep", "duration_seconds": SECONDS, "format": "wav"}
        client.post("/api/v1/creative/sound", json=body).raise_for_status()  # loads the model
        for _ in range(args.runs):
            for prompt in PROMPTS:
                start = time.perf_counter()
                answer = client.post("/api/v1/creative/sound", json={**body, "prompt": prompt})
                answer.raise_for_status()
                service.append(time.perf_counter() - start)
                assert abs(answer.json()["duration_ms"] - SECONDS * 1000) <= 10

    from soundstage.engines.embedder import get_embedder
    from soundstage.engines.sound import scene
    from soundstage.engines.sound.interpret import index_for, interpret

    index = index_for(get_embedder())
    bare: list[float] = []
    for run in range(args.runs):
        for seed, prompt in enumerate(PROMPTS):
            start = time.perf_counter()
            scene.render(interpret(prompt, index), SECONDS, seed + run)
            bare.append(time.perf_counter() - start)
    reference = [fluidsynth_effect(program) for _ in range(args.runs) for program in GM_EFFECTS]

    ours, ref, synth = (statistics.median(x) for x in (service, bare, reference))
    print(f"{len(PROMPTS)} prompts x {args.runs} runs, {SECONDS} s WAV effects, median seconds")
    print(f"endpoint (HTTP, job, match, render, encode, store): {ours:.3f} s per effect")
    print(f"   slowest: {max(service):.3f} s; RTF {ours / SECONDS:.4f}")
    print(f"bare generator (match + render, in process):        {ref:.3f} s per effect")
    print(f"FluidSynth GM effect program (5 s, no matching):    {synth:.4f} s per effect")
    print(f"ratio endpoint / bare generator: {ours / ref:.2f}")
    print(f"ratio bare generator / FluidSynth: {ref / synth:.1f}")


if __name__ == "__main__":
    main()
