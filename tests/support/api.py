"""Assertions on what the HTTP API answers."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from fastapi.testclient import TestClient

from tests.support.factories import Customer


class Answer(Protocol):
    """An HTTP answer of any client the tests use (TestClient's, httpx's)."""

    @property
    def status_code(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def content(self) -> bytes: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    def json(self) -> Any: ...


def assert_error(response: Answer, status: int, code: str) -> dict[str, Any]:
    """The response is the error envelope with this status and code; its `error` object."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    error: dict[str, Any] = body["error"]
    assert error["code"] == code
    assert error["request_id"] == response.headers["Request-Id"]
    assert error["message"]
    return error


def every_page(
    client: TestClient,
    customer: Customer,
    path: str,
    environment: str = "sandbox",
    *,
    key: str | None = None,
    limit: int = 100,
) -> Iterator[dict[str, Any]]:
    """Every object of a cursor-paginated list, `limit` a page, following `starting_after`
    (the item's `key` field; by default `creator_id` for talent, else `id`)."""
    separator = "&" if "?" in path else "?"
    cursor = ""
    while True:
        response = client.get(
            f"{path}{separator}limit={limit}{cursor}", headers=customer.auth(environment)
        )
        assert response.status_code == 200, response.text
        body = response.json()
        yield from body["data"]
        if not body["has_more"]:
            return
        last = body["data"][-1]
        cursor = f"&starting_after={last[key] if key else last.get('creator_id') or last['id']}"


def list_operations(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every GET of the native API whose answer holds a `data` array, by path, with its
    answer's schema. The compatible surfaces (`/v1`, `/elevenlabs`) answer their own APIs'
    shapes (OpenAI's model list takes no pagination) and are tested with their SDKs."""
    components = schema["components"]["schemas"]
    found = {}
    for path, item in schema["paths"].items():
        if not path.startswith("/api/"):
            continue
        answer = item.get("get", {}).get("responses", {}).get("200", {})
        body = answer.get("content", {}).get("application/json", {}).get("schema", {})
        if "$ref" in body:
            body = components[body["$ref"].rsplit("/", 1)[1]]
        assert body.get("type") != "array", f"{path} answers a bare array"
        if body.get("properties", {}).get("data", {}).get("type") == "array":
            found[path] = {"schema": body, "parameters": item["get"].get("parameters", [])}
    return found
