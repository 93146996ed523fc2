"""HTTP endpoints of the OpenAI-compatible audio API, all under `/v1`."""

from __future__ import annotations

from fastapi import APIRouter

TAG = "OpenAI compatible"

router = APIRouter(prefix="/v1", tags=[TAG])
