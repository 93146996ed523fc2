"""HTTP endpoints of the ElevenLabs-compatible API, all under `/elevenlabs`."""

from __future__ import annotations

from fastapi import APIRouter

TAG = "ElevenLabs compatible"

router = APIRouter(prefix="/elevenlabs", tags=[TAG])
