"""ElevenLabs' credential: the `xi-api-key` header carries a Soundstage key (`sk_sandbox_…`,
`sk_live_…`); `Authorization: Bearer` works too."""

from __future__ import annotations

from starlette.datastructures import Headers


def api_key_header(headers: Headers) -> str | None:
    key = headers.get("xi-api-key")
    if key is not None:
        return f"Bearer {key.strip()}"
    return headers.get("authorization")
