"""The console's API keys page (`#/keys`): the list with the current key marked, a key created
in the console (its secret shown once) that authenticates a real `curl` call, its revocation
after a confirmation (the same curl then gets 401 `api_key_revoked`), and the API's refusal to
revoke the last active key shown as the API words it."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from playwright.sync_api import expect

from tests.support.console import ConsolePage, ConsoleServer

CURL = shutil.which("curl") or "/usr/bin/curl"


def curl_credits(server: ConsoleServer, secret: str) -> tuple[int, Any]:
    """GET /api/v1/credits with the real curl binary and this key: (status, JSON body)."""
    done = subprocess.run(
        [
            CURL,
            "--silent",
            "--show-error",
            "--header",
            f"Authorization: Bearer {secret}",
            "--write-out",
            "\n%{http_code}",
            f"{server.url}/api/v1/credits",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    body, _, status = done.stdout.rpartition("\n")
    return int(status), json.loads(body)


def keys_by_id(server: ConsoleServer) -> dict[str, dict[str, Any]]:
    listed = server.api("GET", "/api/v1/keys?limit=100").json()["data"]
    return {key["id"]: key for key in listed}


def test_a_key_created_in_the_console_works_with_curl_until_revoked_there(
    console: ConsolePage, server: ConsoleServer
) -> None:
    page = console.sign_in()
    page.get_by_role("link", name="API keys").click()
    expect(page.get_by_role("heading", name="API keys", level=1)).to_be_visible()
    current = next(k for k in keys_by_id(server).values() if k["current"])
    expect(page.get_by_role("row").filter(has_text=current["preview"])).to_contain_text("current")

    page.get_by_label("Name").fill("CI runner")
    page.get_by_role("button", name="Create key").click()
    expect(page.get_by_role("status")).to_contain_text("Store it now")
    secret = page.get_by_label("Secret of the new key").input_value()
    assert secret.startswith("sk_sandbox_")
    page.get_by_role("button", name="Copy secret").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()

    # The API knows it as the page lists it, never with its secret.
    created = next(k for k in keys_by_id(server).values() if k["name"] == "CI runner")
    assert (created["status"], created["current"]) == ("active", False)
    assert secret.startswith(created["preview"].rstrip("…"))
    row = page.get_by_role("row").filter(has_text="CI runner")
    expect(row).to_contain_text(created["preview"])
    expect(row).to_contain_text("active")
    expect(row).to_contain_text("sandbox")

    status, body = curl_credits(server, secret)
    assert status == 200, body
    assert body["object"] == "credit_balance"
    assert body == server.api("GET", "/api/v1/credits").json()

    # Revoking asks first; cancelling changes nothing.
    row.get_by_role("button", name="Revoke CI runner").click()
    confirm = page.get_by_role("group", name="Revoke CI runner")
    expect(confirm).to_contain_text(created["preview"])
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_be_hidden()
    assert keys_by_id(server)[created["id"]]["status"] == "active"
    assert curl_credits(server, secret)[0] == 200

    row.get_by_role("button", name="Revoke CI runner").click()
    page.get_by_role("button", name="Yes, revoke it").click()
    expect(row).to_contain_text("revoked")
    expect(row.get_by_role("button", name="Revoke CI runner")).to_have_count(0)
    assert keys_by_id(server)[created["id"]]["status"] == "revoked"
    status, body = curl_credits(server, secret)
    assert status == 401, body
    assert body["error"]["code"] == "api_key_revoked"

    # The secret was shown once: leaving the page forgets it.
    page.get_by_role("link", name="Overview").click()
    page.get_by_role("link", name="API keys").click()
    expect(page.get_by_role("row").filter(has_text="CI runner")).to_contain_text("revoked")
    expect(page.get_by_label("Secret of the new key")).to_have_count(0)
    assert secret not in page.content()
    assert secret not in json.dumps(page.evaluate("({...sessionStorage, ...localStorage})"))


def test_the_last_active_key_cannot_be_revoked_and_the_page_says_why(
    console: ConsolePage, server: ConsoleServer
) -> None:
    console.allow_error("409")
    active = [k for k in keys_by_id(server).values() if k["status"] == "active"]
    assert [k["current"] for k in active] == [True]
    page = console.sign_in()
    page.goto(f"{server.url}/console/#/keys")
    current = page.get_by_role("row").filter(has_text="current")
    current.get_by_role("button", name="Revoke").click()
    confirm = page.get_by_role("group").filter(
        has_text="It is the key this console is signed in with"
    )
    confirm.get_by_role("button", name="Yes, revoke it").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("last_api_key")
    expect(alert).to_contain_text("409")
    assert server.api("GET", "/api/v1/credits").status_code == 200


def test_keys_page_screenshot(console: ConsolePage, server: ConsoleServer) -> None:
    page = console.sign_in()
    page.goto(f"{server.url}/console/#/keys")
    for name in ("Staging deploy", "Mobile app"):
        page.get_by_label("Name").fill(name)
        page.get_by_role("button", name="Create key").click()
        expect(page.get_by_role("heading", name=f"Key created: {name}")).to_be_visible()
    expect(page.get_by_role("row").filter(has_text="Mobile app")).to_contain_text("active")
    console.screenshot("03-keys")
