"""Music generation real-time factor: POST /api/v1/creative/music (served by `soundstage serve`
with its embedded worker) against the reference, the `fluidsynth` command-line renderer playing
the very MIDI file the service returned (same soundfont, reverb and chorus off), in one run.
RTF = processing time / audio duration: the ratio reference / endpoint is FluidSynth's share
of the work. The same pieces are also generated in this process with the service's own stage
timings (compose, sing, render, master), to show where the time goes.

    .venv/bin/python bench/music_rtf.py [--seconds 60] [--runs 2] [--vocals]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
from _service import served

PROMPTS = (
    "an upbeat pop song about summer love",
    "a driving rock anthem",
    "smooth late night jazz",
    "an epic orchestral trailer",
)
SOUNDFONT = "/usr/share/sounds/sf2/FluidR3_GM.sf2"


def fluidsynth_cli(midi: bytes, seconds: float) -> float:
    """RTF of the fluidsynth program rendering the MIDI file to a WAV file."""
    with tempfile.TemporaryDirectory() as tmp:
        source, target = Path(tmp) / "piece.mid", Path(tmp) / "piece.wav"
        source.write_bytes(midi)
        start = time.perf_counter()
        subprocess.run(
            [
                "fluidsynth",
                "-ni",
                "-q",
                "-g",
                "0.4",
                "-r",
                "44100",
                "-R",
                "0",
                "-C",
                "0",
                "-F",
                str(target),
                SOUNDFONT,
                str(source),
            ],
            check=True,
            capture_output=True,
        )
        return (time.perf_counter() - start) / seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--runs", type=int, default=1, help="pieces per prompt")
    parser.add_argument("--vocals", action="store_true", help="instrumental: false")
    args = parser.parse_args()
    seconds = args.seconds
    requests = [
        {
            "prompt": prompt,
            "duration_seconds": seconds,
            "format": "mp3",
            "seed": run,
            "instrumental": not args.vocals,
        }
        for prompt in PROMPTS
        for run in range(args.runs)
    ]
    service, reference = [], []
    with served(demo_catalog=args.vocals, credits=1_000_000) as (client, _):
        warm = {**requests[0], "duration_seconds": 10}
        client.post("/api/v1/creative/music", json=warm).raise_for_status()
        for body in requests:
            start = time.perf_counter()
            answer = client.post("/api/v1/creative/music", json=body).json()
            service.append((time.perf_counter() - start) / seconds)
            midi = httpx.get(answer["midi_url"]).content
            reference.append(fluidsynth_cli(midi, seconds))

    from soundstage.engines.music.generator import Singer, generate
    from soundstage.engines.tts.registry import get_engine

    singer = Singer(get_engine("piper"), "en_US-joe-medium", "male") if args.vocals else None
    stages: dict[str, list[float]] = {}
    for body in requests:
        piece = generate(body["prompt"], float(seconds), int(body["seed"]), singer=singer)
        for stage, spent in piece.timings.items():
            stages.setdefault(stage, []).append(spent / seconds)
    ours, ref = statistics.median(service), statistics.median(reference)
    kind = "with vocals (voice_joe)" if args.vocals else "instrumental"
    print(f"{len(requests)} pieces of {seconds} s, {kind}, MP3, median")
    print(f"endpoint RTF (HTTP, job, compose, render, mix, master, encode, store): {ours:.4f}")
    print(f"  = {ours * 60:.2f} s of generation per minute of music")
    print(f"reference RTF, fluidsynth CLI rendering the returned MIDI file:    {ref:.4f}")
    print(f"FluidSynth's share of the endpoint's time (reference / endpoint):  {ref / ours:.1%}")
    total = sum(statistics.median(v) for v in stages.values())
    print("in-process stages (RTF, share of the generator's time):")
    for stage, values in stages.items():
        value = statistics.median(values)
        print(f"  {stage:8s} {value:.4f}  {value / total:.1%}")


if __name__ == "__main__":
    main()
