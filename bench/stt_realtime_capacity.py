"""Realtime transcription capacity: N sessions of GET /api/v1/speech/stt/realtime at once (8 by
default), each fed the LibriVox session audio of bench/stt_realtime.py at real-time pace in
40 ms frames; the offline transcription of the same audio (POST /api/v1/speech/stt) alone,
before them, as the reference. The sessions' starts are spread evenly over --spread seconds:
by default 8, about one utterance and its pause, so that their utterances end at different
moments as independent callers' do; --spread 1 has every session end each utterance within a
second of the others (8 finals decoded at once: the worst case).

The server gets a slot per session and one more (one account may hold every slot but one).
Figures over all sessions: the gaps between partials while a clip is spoken (p50, p95, max;
goal: a partial at least every 500 ms), end of utterance to final (p50, max; goal: p50 under
800 ms), the sessions' real-time factor (slot processing / audio; goal: at most 2x offline),
and the WER of the finals against the offline transcript's (goal: equal). Then what capacity
is made of: the CPU time of every process of the server (API, slots, batch, worker) per
second of audio, for the sessions (over the run) and for the offline transcription (over its
request); a machine of C cores keeps up with at most C / that many streams of either kind.
The slots' time counts the waits for a turn at the cores; the CPU time does not.

    .venv/bin/python bench/stt_realtime_capacity.py [--sessions 8] [--model whisper-base]
        [--partial-model tiny.en]

--partial-model sets stt.realtime_partial_model (default here: tiny.en): the partials of
English speech from that model, the finals from --model; `--partial-model whisper-base` has
whisper-base write both, as the service does by default.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import time
from collections import Counter
from typing import Any

import numpy as np
import soundfile
from _service import served
from stt_realtime import (
    RATE,
    clip_times,
    differences,
    figures,
    live,
    partials_during,
    session_audio,
    wer,
)


async def together(
    url: str, key: str, model: str, audio: np.ndarray, sessions: int, spread: float
) -> list[tuple[list[Any], list[float]]]:
    async def one(index: int) -> tuple[list[Any], list[float]]:
        await asyncio.sleep(spread * index / sessions)
        return await live(url, key, model, audio)

    return await asyncio.gather(*(one(index) for index in range(sessions)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--model", default="whisper-base")
    parser.add_argument("--partial-model", default="tiny.en")
    parser.add_argument("--spread", type=float, default=8.0)
    args = parser.parse_args()
    audio, spans, text = session_audio()
    seconds = len(audio) / RATE
    slots = {
        "processes": args.sessions + 1,
        "max_sessions_per_account": args.sessions,
    }
    env = {"SOUNDSTAGE_REALTIME": json.dumps(slots)}
    env["SOUNDSTAGE_STT__REALTIME_PARTIAL_MODEL"] = args.partial_model
    with served(credits=100_000 * args.sessions, extra_env=env) as (client, _data_dir):
        key = client.headers["Authorization"].removeprefix("Bearer ")
        url = str(client.base_url).replace("http://", "ws://") + "/api/v1/speech/stt/realtime"
        wav = io.BytesIO()
        soundfile.write(wav, audio, RATE, format="WAV")
        upload = client.post(
            "/api/v1/uploads", files={"file": ("speech.wav", wav.getvalue(), "audio/wav")}
        )
        upload.raise_for_status()
        audio_url = upload.json()["url"]
        client.post("/api/v1/speech/stt", json={"audio_url": audio_url}).raise_for_status()
        start, cpu = time.perf_counter(), server_cpu_seconds()
        answer = client.post("/api/v1/speech/stt", json={"audio_url": audio_url})
        answer.raise_for_status()
        offline_rtf = (time.perf_counter() - start) / seconds
        offline_cpu = (server_cpu_seconds() - cpu) / seconds
        offline_wer = wer(text, answer.json()["transcript"])
        # Warm up: every slot loads the model once (short sessions, all at once).
        asyncio.run(together(url, key, args.model, audio[: RATE * 2], args.sessions, 1.0))
        load_before, cpu = os.getloadavg()[0], server_cpu_seconds()
        runs = asyncio.run(together(url, key, args.model, audio, args.sessions, args.spread))
        load_after = os.getloadavg()[0]
        sessions_cpu = (server_cpu_seconds() - cpu) / (seconds * args.sessions)
    results = [figures(messages, sent, spans, text) for messages, sent in runs]
    gaps = [gap for messages, sent in runs for gap in partial_gaps(messages, sent, spans)]
    eous = [got["eou_p50"] for got in results]
    rtfs = [got["rtf"] for got in results]
    wers = [got["wer"] for got in results]
    print(
        f"{args.sessions} sessions at once, {args.model} (partials: {args.partial_model}), "
        f"starts spread over {args.spread:g} s, each {seconds:.1f} s of real speech "
        f"(6 utterances, 1.5 s pauses) in 40 ms frames at real time; {os.cpu_count()} cores; "
        f"load average {load_before:.2f} before, {load_after:.2f} after"
    )
    print(
        f"gap between partials (all sessions): p50 {statistics.median(gaps) * 1000:.0f} ms, "
        f"p95 {np.percentile(gaps, 95) * 1000:.0f} ms, max {max(gaps) * 1000:.0f} ms "
        "(goal: <= 500 ms)"
    )
    firsts = [got["first_p50"] for got in results]
    print(
        f"clip start -> first partial: p50 {statistics.median(firsts) * 1000:.0f} ms (median of "
        f"the sessions' p50); clips with no partial while sent: "
        f"{sum(got['clips_without_partial'] for got in results):.0f} of {len(spans) * len(runs)}"
    )
    print(
        f"end of utterance -> final: p50 {statistics.median(eous) * 1000:.0f} ms (median of the "
        f"sessions' p50), worst session max {max(g['eou_max'] for g in results) * 1000:.0f} ms "
        "(goal: p50 < 800 ms)"
    )
    print(
        f"session RTF: p50 {statistics.median(rtfs):.3f}, max {max(rtfs):.3f}; offline RTF "
        f"{offline_rtf:.3f}; ratio {statistics.median(rtfs) / offline_rtf:.2f} (goal: <= 2)"
    )
    print(
        f"finals' WER: p50 {statistics.median(wers):.3f}, max {max(wers):.3f}; offline WER "
        f"{offline_wer:.3f} (goal: equal)"
    )
    misheard = Counter(
        change
        for messages, _ in runs
        for change in differences(
            text, " ".join(m["text"] for _, m in messages if m["type"] == "final")
        )
    )
    print(
        "finals' words that differ from what was said (all sessions): "
        + (", ".join(f"{change} x{count}" for change, count in misheard.most_common(5)) or "none")
    )
    print(
        f"server CPU time per second of audio: sessions {sessions_cpu:.3f}, offline "
        f"{offline_cpu:.3f}; ratio {sessions_cpu / offline_cpu:.2f}; {os.cpu_count()} cores "
        f"keep up with at most {(os.cpu_count() or 1) / sessions_cpu:.1f} live streams, "
        f"{(os.cpu_count() or 1) / offline_cpu:.1f} offline"
    )


def server_cpu_seconds() -> float:
    """The CPU time (user and system) of every running process descended from this one: the
    server and the processes it started."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / tick

    def descends(pid: int) -> bool:
        while pid in parents and pid != os.getpid():
            pid = parents[pid]
        return pid == os.getpid()

    return sum(t for pid, t in times.items() if pid != os.getpid() and descends(pid))


def partial_gaps(
    messages: list[Any], sent: list[float], spans: list[tuple[float, float]]
) -> list[float]:
    """Every gap between partials while a clip is being sent (from its first partial)."""
    gaps: list[float] = []
    for span in spans:
        gaps += list(np.diff(partials_during(messages, *clip_times(sent, span))))
    return gaps


if __name__ == "__main__":
    main()
