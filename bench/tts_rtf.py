"""Text-to-speech real-time factor: POST /api/v1/speech/tts (served by `soundstage serve`
with its embedded worker) against the bare engine synthesizing the same 1,000 characters in
this process, in one run. RTF = processing time / audio duration; prints the ratio.

Also the time to the first audio byte of the same text: POST /api/v1/speech/tts/stream
against the non-streaming endpoint (its answer, then the first byte of its output_url).

    .venv/bin/python bench/tts_rtf.py [--voice voice_joe] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import httpx
from _service import served

TEXT = (
    "The old lighthouse stood at the edge of the cliff, its white paint peeling in the salt "
    "wind. Every evening the keeper climbed the spiral stairs, counted the steps out of habit, "
    "and lit the great lamp that swept across the dark water. Ships passing in the night "
    "never saw him, but they trusted the light. One winter a storm tore the shutters from "
    "the windows and flooded the lower rooms. The keeper worked through the night, bailing "
    "water and keeping the flame alive. By morning the sea had calmed, and a fishing boat "
    "that had been lost in the fog found its way home. The captain climbed the hill to thank "
    "him, carrying a basket of bread and smoked fish. They sat together on the bench by the "
    "door and watched the gulls circle above the harbor. Neither of them said much, but both "
    "understood that the light had mattered more than words ever could on such a long night. "
    "In spring the keeper painted the tower again, and children from the village came to "
    "watch, asking about the storm until he told the story one more time."
)[:1000]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--voice", default="voice_joe")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    assert len(TEXT) == 1000
    with served(demo_catalog=True) as (client, data_dir):
        voice = client.get(f"/api/v1/voices/{args.voice}").json()
        body = {"text": TEXT, "voice_id": args.voice, "format": "wav"}
        client.post("/api/v1/speech/tts", json={**body, "text": "Warm up."}).raise_for_status()
        service, whole_first_byte, stream_first_byte = [], [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            answer = client.post("/api/v1/speech/tts", json=body).json()
            service.append((time.perf_counter() - start) / (answer["duration_ms"] / 1000))
            with httpx.stream("GET", answer["output_url"]) as audio:
                next(audio.iter_raw(1024))
            whole_first_byte.append(time.perf_counter() - start)
            start = time.perf_counter()
            with client.stream("POST", "/api/v1/speech/tts/stream", json=body) as streamed:
                streamed.raise_for_status()
                chunks = streamed.iter_raw(1024)
                next(chunks)
                stream_first_byte.append(time.perf_counter() - start)
                for _chunk in chunks:
                    pass

    from soundstage.config import Settings
    from soundstage.core.db import Database
    from soundstage.engines.tts.registry import get_engine
    from soundstage.voices import service as voices

    with Database(Settings(data_dir=data_dir)).read_session() as session:
        engine_voice = voices.get_active_voice(session, args.voice).engine_voice
    engine = get_engine(voice["engine"])
    engine.synthesize("Warm up.", engine_voice)
    bare = []
    for _ in range(args.runs):
        start = time.perf_counter()
        audio = engine.synthesize(TEXT, engine_voice)
        bare.append((time.perf_counter() - start) / (audio.frames / audio.sample_rate))
    ours, ref = statistics.median(service), statistics.median(bare)
    print(
        f"voice {args.voice} ({voice['engine']}), 1,000 characters, WAV, {args.runs} runs, median"
    )
    print(f"endpoint RTF (HTTP, job, split, join, encode, store): {ours:.4f}")
    print(f"bare engine RTF (one call, same text):                {ref:.4f}")
    print(f"ratio endpoint / engine: {ours / ref:.3f}")
    streamed, whole = statistics.median(stream_first_byte), statistics.median(whole_first_byte)
    print(f"time to first audio byte, /tts/stream:             {streamed * 1000:.0f} ms")
    print(f"time to first audio byte, /tts (answer + download): {whole * 1000:.0f} ms")
    print(f"ratio stream / whole: {streamed / whole:.3f}")


if __name__ == "__main__":
    main()
