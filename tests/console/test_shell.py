"""The console's shell: served at /console by `soundstage serve`, sign-in with a key (kept in
session storage, checked by the API first), environment switch, sign-out."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.console import ConsolePage, ConsoleServer


def test_console_is_served_with_its_security_headers(server: ConsoleServer) -> None:
    index = server.api("GET", "/console/")
    assert index.status_code == 200
    assert "text/html" in index.headers["content-type"]
    assert "script-src 'self'" in index.headers["content-security-policy"]
    redirect = server.api("GET", "/console")
    assert (redirect.status_code, redirect.headers["location"]) == (308, "/console/")
    missing = server.api("GET", "/console/assets/nothing.js")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "console_file_not_found"


def test_a_wrong_key_is_refused_with_the_apis_message(console: ConsolePage) -> None:
    console.allow_error("401")
    page = console.open()
    page.get_by_label("API key").fill("sk_sandbox_not-a-real-key")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("invalid_api_key")
    page.get_by_label("API key").fill("hello")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("sk_sandbox_")


def test_sign_in_keeps_the_key_for_the_tab_only_and_signs_out(console: ConsolePage) -> None:
    page = console.sign_in()
    expect(page.get_by_label("Environment")).to_have_value("sandbox")
    stored = page.evaluate("sessionStorage.getItem('soundstage.keys')")
    assert console.server.key in stored
    assert page.evaluate("localStorage.length") == 0
    assert page.context.cookies() == []
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("API key")).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('soundstage.keys')") is None


def test_sign_in_page_screenshot(console: ConsolePage) -> None:
    page = console.open()
    expect(page.get_by_label("API key")).to_be_visible()
    console.screenshot("01-sign-in")


# Every page of the navigation, and a detail page of each marketplace (demo catalog ids).
PAGES = [
    ("/", "Overview"),
    ("/keys", "API keys"),
    ("/playground", "Playground"),
    ("/jobs", "Jobs"),
    ("/webhooks", "Webhooks"),
    ("/studios", "Studios"),
    ("/studios/studio_berlin_002", None),
    ("/talent", "Talent"),
]

# Run in the page: form controls without an accessible name, and how far the page overflows
# the viewport sideways.
_AUDIT = """() => {
  const unnamed = [...document.querySelectorAll('input, select, textarea, button')]
    .filter((el) => el.type !== 'hidden')
    .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
      && !el.getAttribute('aria-labelledby') && !(el.tagName === 'BUTTON' && el.textContent.trim()))
    .map((el) => el.outerHTML.slice(0, 120));
  return {unnamed, overflow: document.documentElement.scrollWidth - window.innerWidth};
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_every_page_names_its_controls_and_fits_the_width(console: ConsolePage, width: int) -> None:
    # The talent pages answer an unverified buyer 403 buyer_not_verified (their gate).
    console.allow_error("403")
    page = console.sign_in()
    page.set_viewport_size({"width": width, "height": 900})
    for route, title in PAGES:
        console.open(route)
        heading = page.get_by_role("heading", level=1)
        if title:
            expect(heading).to_have_text(title)
        else:
            expect(heading).not_to_be_empty()
        page.wait_for_load_state("networkidle")
        audit = page.evaluate(_AUDIT)
        assert audit["unnamed"] == [], f"{route} at {width} px: controls without a name"
        assert audit["overflow"] <= 0, f"{route} at {width} px overflows by {audit['overflow']} px"
    # The navigation works from the keyboard: a focused link follows on Enter.
    console.open("/")
    page.get_by_role("navigation", name="Console").get_by_role("link", name="Jobs").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_have_text("Jobs")
