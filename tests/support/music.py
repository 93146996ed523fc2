"""Music requests and what their answers hold: generate, fetch the audio and MIDI, read the
notes back."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

import mido
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.media.audio import Audio, decode
from tests.support.factories import Customer

MUSIC = "/api/v1/creative/music"

# Eleven named instruments (the most a prompt may name), in two shapes: eleven that play tunes
# and chords (the genre's bass joins them), and bass-only ones (the genre's chords and lead
# join them).
ELEVEN_MELODIC = (
    "pop with piano, rhodes, harpsichord, clavinet, celesta, glockenspiel, music box, "
    "vibraphone, marimba, xylophone and church organ"
)
ELEVEN_LOW = (
    "funk with a bass guitar, fretless bass, slap bass, synth bass, double bass, contrabass, "
    "tuba, timpani, cello, trombone and bassoon"
)


def compose(client: TestClient, customer: Customer, **body: Any) -> dict[str, Any]:
    response = client.post(MUSIC, headers=customer.auth(), json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def fetch(client: TestClient, settings: Settings, url: str) -> bytes:
    response = client.get(url.removeprefix(settings.public_base_url))
    assert response.status_code == 200, response.text
    return response.content


def fetch_audio(client: TestClient, settings: Settings, url: str) -> Audio:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / url.split("?")[0].rsplit("/", 1)[-1]
        path.write_bytes(fetch(client, settings, url))
        return decode(path)


def fetch_midi(client: TestClient, settings: Settings, url: str) -> mido.MidiFile:
    return mido.MidiFile(file=io.BytesIO(fetch(client, settings, url)))


def programs(midi: mido.MidiFile) -> set[int]:
    """Programs of the melodic channels' program changes (the drum channel's are kits)."""
    return {
        message.program
        for track in midi.tracks
        for message in track
        if message.type == "program_change" and message.channel != 9
    }


def midi_notes(midi: mido.MidiFile, track_name: str) -> list[tuple[float, float, int]]:
    """(start s, end s, key) of the notes of the track whose name starts with track_name."""
    tempo = next(m.tempo for t in midi.tracks for m in t if m.type == "set_tempo")
    for track in midi.tracks:
        names = [m.name for m in track if m.type == "track_name"]
        if not names or not names[0].startswith(track_name):
            continue
        seconds, sounding, notes = 0.0, {}, []
        for message in track:
            seconds += mido.tick2second(message.time, midi.ticks_per_beat, tempo)
            if message.type == "note_on" and message.velocity > 0:
                sounding[message.note] = seconds
            elif message.type in ("note_off", "note_on") and message.note in sounding:
                notes.append((sounding.pop(message.note), seconds, message.note))
        return sorted(notes)
    raise AssertionError(f"no track named {track_name!r}")
