"""Realtime transcription speed: GET /api/v1/speech/stt/realtime (served by `soundstage serve`)
fed the LibriVox clips with 1.5 s of silence between them, twice over, at real-time pace in
40 ms frames, with whisper-base and with tiny.en; the offline transcription of the same audio
(POST /api/v1/speech/stt) in the same run as the reference.

Figures: end of utterance (the clip's last frame sent) to its final transcript, p50 and max;
the gaps between partials while a clip is spoken, p50 and max, and from the clip's first
frame to its first partial (silero-vad's onset, then 360 ms of speech); the session's
real-time factor (the slot's processing time / audio time, as session.closed reports it);
WER of the finals and of the offline transcript.

    .venv/bin/python bench/stt_realtime.py
"""

from __future__ import annotations

import asyncio
import io
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import jiwer
import numpy as np
import soundfile
import websockets
from _service import served

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.audio_fixtures import transcript_words
from tests.support.audio_fixtures import word_error_rate as wer

LIBRIVOX = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "librivox"
RATE = 16_000
FRAME_MS = 40
GAP_S = 1.5
ROUNDS = 2


def session_audio() -> tuple[np.ndarray, list[tuple[float, float]], str]:
    """The audio, each clip's (start, end) in seconds, and what is said."""
    gap = np.zeros(int(RATE * GAP_S), dtype=np.float32)
    parts, spans, texts = [gap], [], []
    position = len(gap)
    for _ in range(ROUNDS):
        for path in sorted(LIBRIVOX.glob("*.flac")):
            samples, rate = soundfile.read(path, dtype="float32")
            assert rate == RATE
            spans.append((position / RATE, (position + len(samples)) / RATE))
            texts.append(path.with_suffix(".txt").read_text().strip())
            parts += [samples, gap]
            position += len(samples) + len(gap)
    return np.concatenate(parts), spans, " ".join(texts)


def differences(reference: str, hypothesis: str) -> list[str]:
    """Each stretch of words the hypothesis has other than the reference's ('ill disposed' ->
    'ild sposed'), as the WER counts them."""
    said, heard = transcript_words(reference), transcript_words(hypothesis)
    alignment = jiwer.process_words(" ".join(said), " ".join(heard)).alignments[0]
    return [
        f"'{' '.join(said[c.ref_start_idx : c.ref_end_idx])}' -> "
        f"'{' '.join(heard[c.hyp_start_idx : c.hyp_end_idx])}'"
        for c in alignment
        if c.type != "equal"
    ]


async def live(url: str, key: str, model: str, audio: np.ndarray) -> tuple[list[Any], list[float]]:
    """Messages with their arrival time, and each frame's sending time."""
    pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()
    step = RATE * FRAME_MS // 1000 * 2
    frames = [pcm[i : i + step] for i in range(0, len(pcm), step)]
    messages: list[Any] = []
    sent: list[float] = []
    headers = {"Authorization": f"Bearer {key}"}
    async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
        await ws.send(json.dumps({"language": "en", "model_id": model}))
        assert json.loads(await ws.recv())["type"] == "session.started"

        async def read() -> None:
            async for raw in ws:
                message = json.loads(raw)
                messages.append((time.monotonic(), message))
                if message["type"] == "session.closed":
                    return

        reader = asyncio.create_task(read())
        began = time.monotonic()
        for i, frame in enumerate(frames):
            await ws.send(frame)
            sent.append(time.monotonic())
            await asyncio.sleep(max(0.0, began + (i + 1) * FRAME_MS / 1000 - time.monotonic()))
        await ws.send(json.dumps({"close": True}))
        # A session behind its client finishes after the audio ends: waited for (bounded).
        await asyncio.wait_for(reader, 600)
    return messages, sent


def clip_times(sent: list[float], span: tuple[float, float]) -> tuple[float, float]:
    """When a clip's first and last frames were sent."""
    start_s, end_s = span
    return (
        sent[round(start_s * 1000 / FRAME_MS)],
        sent[min(len(sent) - 1, round(end_s * 1000 / FRAME_MS) - 1)],
    )


def partials_during(messages: list[Any], clip_start: float, clip_end: float) -> list[float]:
    """When the partials that came while a clip was being sent arrived."""
    return [at for at, m in messages if m["type"] == "partial" and clip_start <= at <= clip_end]


def figures(
    messages: list[Any], sent: list[float], spans: list[tuple[float, float]], text: str
) -> dict[str, float]:
    finals = [(at, m) for at, m in messages if m["type"] == "final"]
    latencies, gaps, firsts = [], [], []
    without = 0
    for span in spans:
        clip_start, clip_end = clip_times(sent, span)
        after = [at for at, m in finals if at >= clip_end]
        latencies.append(after[0] - clip_end)
        partials = partials_during(messages, clip_start, clip_end)
        if not partials:
            # None while the clip was sent (a session behind): its first came after it.
            without += 1
            partials = [clip_end]
        firsts.append(partials[0] - clip_start)
        gaps += list(np.diff(partials))
    closed = messages[-1][1]
    return {
        "eou_p50": statistics.median(latencies),
        "eou_max": max(latencies),
        "gap_p50": statistics.median(gaps) if gaps else float("nan"),
        "gap_max": max(gaps, default=float("nan")),
        "clips_without_partial": without,
        "first_p50": statistics.median(firsts),
        "rtf": closed["processing_ms"] / closed["duration_ms"],
        "wer": wer(text, " ".join(m["text"] for _, m in finals)),
        "finals": len(finals),
    }


def main() -> None:
    audio, spans, text = session_audio()
    seconds = len(audio) / RATE
    with served(credits=100_000) as (client, _data_dir):
        key = client.headers["Authorization"].removeprefix("Bearer ")
        url = str(client.base_url).replace("http://", "ws://") + "/api/v1/speech/stt/realtime"
        wav = io.BytesIO()
        soundfile.write(wav, audio, RATE, format="WAV")
        upload = client.post(
            "/api/v1/uploads", files={"file": ("speech.wav", wav.getvalue(), "audio/wav")}
        )
        upload.raise_for_status()
        audio_url = upload.json()["url"]
        # Warm up: the worker loads the model once, and so does a slot for each model.
        client.post("/api/v1/speech/stt", json={"audio_url": audio_url}).raise_for_status()
        results = {}
        for model in ("whisper-base", "tiny.en"):
            asyncio.run(live(url, key, model, audio[: RATE * 3]))
            messages, sent = asyncio.run(live(url, key, model, audio))
            results[model] = figures(messages, sent, spans, text)
        start = time.perf_counter()
        answer = client.post("/api/v1/speech/stt", json={"audio_url": audio_url})
        answer.raise_for_status()
        offline_rtf = (time.perf_counter() - start) / seconds
        offline_wer = wer(text, answer.json()["transcript"])
    print(f"{seconds:.1f} s of real speech (6 utterances, 1.5 s pauses), 40 ms frames, real time")
    for model, got in results.items():
        print(f"-- {model} (finals: {got['finals']:.0f})")
        print(
            f"end of utterance -> final:  p50 {got['eou_p50'] * 1000:.0f} ms, "
            f"max {got['eou_max'] * 1000:.0f} ms"
        )
        print(
            f"gap between partials:       p50 {got['gap_p50'] * 1000:.0f} ms, "
            f"max {got['gap_max'] * 1000:.0f} ms"
        )
        print(f"clip start -> first partial: p50 {got['first_p50'] * 1000:.0f} ms")
        print(f"session RTF (slot processing / audio): {got['rtf']:.3f}")
        print(f"finals' WER: {got['wer']:.3f}")
    base = results["whisper-base"]["rtf"]
    print("-- offline POST /api/v1/speech/stt (whisper-base, beam 5), same audio")
    print(f"offline RTF (HTTP, job, decode, transcribe): {offline_rtf:.3f}; WER {offline_wer:.3f}")
    print(f"ratio realtime session RTF / offline RTF (whisper-base): {base / offline_rtf:.2f}")


if __name__ == "__main__":
    main()
