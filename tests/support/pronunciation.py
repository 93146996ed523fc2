"""Pronunciation dictionaries through the API: creation from rules or from a PLS file, and
PLS files written by hand (never by the service's writer) for the tests to upload."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

from fastapi.testclient import TestClient

from tests.support.factories import Customer

DICTIONARIES = "/api/v1/pronunciation-dictionaries"
PLS_NS = "http://www.w3.org/2005/01/pronunciation-lexicon"
# "Soundstage" said as "sound check" (IPA): a rule whose effect whisper hears.
SOUND_CHECK_IPA = "\u02c8sa\u028and \u02cct\u0283\u025bk"


def alias_rule(text: str, alias: str, **extra: Any) -> dict[str, Any]:
    return {"type": "alias", "string_to_replace": text, "alias": alias, **extra}


def phoneme_rule(text: str, phoneme: str, alphabet: str = "ipa", **extra: Any) -> dict[str, Any]:
    return {
        "type": "phoneme",
        "string_to_replace": text,
        "phoneme": phoneme,
        "alphabet": alphabet,
        **extra,
    }


def create(
    client: TestClient,
    customer: Customer,
    rules: Sequence[dict[str, Any]],
    name: str = "Brand names",
    environment: str = "sandbox",
    **extra: Any,
) -> dict[str, Any]:
    """A new dictionary (asserted 200): its JSON."""
    response = client.post(
        DICTIONARIES,
        json={"name": name, "rules": list(rules), **extra},
        headers=customer.auth(environment),
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def upload(
    client: TestClient,
    customer: Customer,
    data: bytes,
    name: str = "From PLS",
    environment: str = "sandbox",
) -> Any:
    """POST …/from-file with `data` as the file: the answer, unchecked."""
    return client.post(
        f"{DICTIONARIES}/from-file",
        files={"file": ("lexicon.pls", data, "application/pls+xml")},
        data={"name": name},
        headers=customer.auth(environment),
    )


def version(
    client: TestClient, customer: Customer, dictionary_id: str, version_id: str
) -> dict[str, Any]:
    response = client.get(
        f"{DICTIONARIES}/{dictionary_id}/versions/{version_id}", headers=customer.auth()
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def lexicon(
    lexemes: Sequence[tuple[Sequence[str], str, str]],
    alphabet: str = "ipa",
    language: str = "en-US",
    padding: str = "",
) -> bytes:
    """A PLS 1.0 file: each lexeme is (graphemes, "phoneme" | "alias", text); `padding`
    (e.g. a comment) goes before the end tag."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<lexicon version="1.0" xmlns="{PLS_NS}" alphabet="{alphabet}" xml:lang="{language}">',
    ]
    for graphemes, kind, text in lexemes:
        lines.append("  <lexeme>")
        lines += [f"    <grapheme>{escape(g)}</grapheme>" for g in graphemes]
        lines.append(f"    <{kind}>{escape(text)}</{kind}>")
        lines.append("  </lexeme>")
    lines.append(padding + "</lexicon>")
    return "\n".join(lines).encode()
