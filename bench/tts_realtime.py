"""Realtime text-to-speech latency: the time from the first complete sentence sent (word by
word at 20 words/s, its last word sent with the space that completes it) to the first audio
frame received, over the WebSocket GET /api/v1/speech/tts/realtime, against the time to first
byte of POST /api/v1/speech/tts/stream for the same sentence, in one run of `soundstage serve`
(embedded worker, one realtime slot, warmed first: the sessions run one at a time, and one
account may not hold both of two slots to warm them). Prints p50 and p90 of each, the
ratio of the medians, and the bare engine's time for the same sentences in this process (run
after the server stopped), which bounds what the service can do. Target: realtime p50 < 250 ms.

    .venv/bin/python bench/tts_realtime.py [--voice voice_joe] [--sessions 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import httpx
from _service import served
from websockets.sync.client import ClientConnection, connect

# First sentences of 36 to 60 characters without a clause mark: nothing is spoken before the
# sentence is complete, so the time measured is the sentence's alone.
SENTENCES = (
    "The old lighthouse stood at the edge of the cliff.",
    "Every evening the keeper climbed the spiral stairs.",
    "Ships passing in the night never saw him.",
    "One winter a storm tore the shutters from the windows.",
    "The keeper worked through the night to keep the flame alive.",
    "By morning the sea had calmed again.",
    "A fishing boat lost in the fog found its way home.",
    "The captain climbed the hill to thank him.",
    "They sat together on the bench by the door.",
    "Neither of them said much that morning.",
    "In spring the keeper painted the tower again.",
    "Children from the village came to watch him work.",
    "He told the story of the storm one more time.",
    "The gulls circled slowly above the harbor.",
    "Bread and smoked fish waited in the basket.",
    "The lamp swept across the dark water all night.",
    "Nobody in the village remembered a worse winter.",
    "The spiral stairs had one hundred and twelve steps.",
    "Salt wind peeled the white paint from the walls.",
    "The light had mattered more than words ever could.",
)
SECOND = " Then the rest of the text followed as it was written."
WORDS_PER_SECOND = 20


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def open_session(ws_url: str, key: str) -> ClientConnection:
    return connect(
        f"{ws_url}/api/v1/speech/tts/realtime",
        additional_headers={"Authorization": f"Bearer {key}"},
        max_size=None,
    )


def start(ws: ClientConnection, voice: str) -> None:
    ws.send(json.dumps({"voice_id": voice, "format": "pcm_24000", "text": " "}))


def finish(ws: ClientConnection) -> dict[str, object]:
    """End the session and read up to its final message."""
    ws.send(json.dumps({"text": ""}))
    while True:
        message = ws.recv()
        if isinstance(message, str):
            body = json.loads(message)
            if body.get("type") in ("final", "error"):
                return dict(body)


def realtime_latency(ws_url: str, key: str, voice: str, sentence: str) -> float:
    with open_session(ws_url, key) as ws:
        start(ws, voice)
        sent_at = 0.0
        for word in sentence.split(" "):
            time.sleep(1 / WORDS_PER_SECOND)
            ws.send(json.dumps({"text": word + " "}))
            sent_at = time.perf_counter()
        while not isinstance(ws.recv(), bytes):
            pass
        latency = time.perf_counter() - sent_at
        for word in SECOND.split(" "):
            ws.send(json.dumps({"text": word + " "}))
        final = finish(ws)
    assert final.get("type") == "final", final
    return latency


def stream_first_byte(client: httpx.Client, voice: str, sentence: str) -> float:
    body = {"text": sentence + SECOND, "voice_id": voice, "format": "wav"}
    start = time.perf_counter()
    with client.stream("POST", "/api/v1/speech/tts/stream", json=body) as streamed:
        streamed.raise_for_status()
        chunks = streamed.iter_raw(1024)
        next(chunks)
        first = time.perf_counter() - start
        for _chunk in chunks:
            pass
    return first


def engine_of(client: httpx.Client, data_dir: Path, voice_id: str) -> tuple[Any, str]:
    """The voice's engine, loaded in this process, and its engine voice (warmed)."""
    from soundstage.config import Settings
    from soundstage.core.db import Database
    from soundstage.engines.tts.registry import get_engine
    from soundstage.voices import service as voices

    with Database(Settings(data_dir=data_dir)).read_session() as session:
        engine_voice = voices.get_active_voice(session, voice_id).engine_voice
    engine = get_engine(client.get(f"/api/v1/voices/{voice_id}").json()["engine"])
    engine.synthesize("Warm up.", engine_voice)
    return engine, engine_voice


def warm(ws_url: str, key: str, voice: str) -> None:
    """The slot loads the voice."""
    with open_session(ws_url, key) as ws:
        start(ws, voice)
        ws.send(json.dumps({"text": "Warm up. "}))
        finish(ws)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--voice", default="voice_joe")
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args()
    os.environ["SOUNDSTAGE_REALTIME__PROCESSES"] = "1"  # the server started below
    with served(demo_catalog=True, credits=100_000) as (client, data_dir):
        key = str(client.headers["Authorization"]).removeprefix("Bearer ")
        ws_url = str(client.base_url).replace("http://", "ws://").rstrip("/")
        warm(ws_url, key, args.voice)
        stream_first_byte(client, args.voice, "Warm up.")
        realtime, http = [], []
        for index in range(args.sessions):
            sentence = SENTENCES[index % len(SENTENCES)]
            realtime.append(realtime_latency(ws_url, key, args.voice, sentence))
            http.append(stream_first_byte(client, args.voice, sentence))
        engine, engine_voice = engine_of(client, data_dir, args.voice)
    bare = []
    for index in range(args.sessions):
        sentence = SENTENCES[index % len(SENTENCES)]
        started = time.perf_counter()
        engine.synthesize(sentence, engine_voice)
        bare.append(time.perf_counter() - started)
    print(
        f"voice {args.voice}, {args.sessions} sessions, first sentence of 36-60 characters "
        f"sent at {WORDS_PER_SECOND} words/s"
    )
    for name, values in (
        ("realtime WebSocket, first sentence -> first audio frame", realtime),
        ("POST /tts/stream (same sentence + rest), time to first byte", http),
        ("bare engine in this process, the sentence synthesized", bare),
    ):
        print(
            f"{name}: p50 {statistics.median(values) * 1000:.0f} ms, "
            f"p90 {percentile(values, 0.9) * 1000:.0f} ms"
        )
    ratio = statistics.median(realtime) / statistics.median(http)
    print(f"ratio realtime / HTTP stream (p50): {ratio:.3f}")
    overhead = statistics.median(realtime) - statistics.median(bare)
    print(f"realtime p50 over the bare engine's: {overhead * 1000:.0f} ms")
    target = "met" if statistics.median(realtime) < 0.25 else "NOT met"
    print(f"target realtime p50 < 250 ms: {target}")


if __name__ == "__main__":
    main()
