"""The web console in a real browser: a live `soundstage serve` set up as `make serve` sets it
up (fresh SQLite database, migrations, demo catalog, the funded sandbox key of `soundstage
demo`), and Debian's Chromium (/usr/bin/chromium) driven headless by Playwright over the
DevTools protocol. Every page a test opens is watched for console errors and uncaught
exceptions; the test fails on any it did not expect. Screenshots go to build/screenshots/."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, ConsoleMessage, Page, ViewportSize, sync_playwright

from tests.support.processes import REPO_ROOT, free_port, fresh_serve, fresh_serve_env

CHROMIUM = Path(os.environ.get("SOUNDSTAGE_TEST_CHROMIUM", "/usr/bin/chromium"))
SCREENSHOTS = REPO_ROOT / "build" / "screenshots"
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}


@dataclass
class ConsoleServer:
    """The live server: its base URL, the demo account's funded sandbox key, its environment
    (for the CLI) and data directory."""

    url: str
    key: str
    account_id: str
    env: dict[str, str]
    root: Path

    def api(self, method: str, path: str, key: str | None = None, **kwargs: Any) -> httpx.Response:
        """A call to the public API, as curl would make it (outside the browser)."""
        headers = {"Authorization": f"Bearer {key or self.key}", **kwargs.pop("headers", {})}
        return httpx.request(method, self.url + path, headers=headers, timeout=60, **kwargs)

    def cli(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "soundstage.cli", *args],
            env=self.env,
            check=True,
            capture_output=True,
            text=True,
        )
        return done.stdout


@contextmanager
def console_server(root: Path, **settings: str) -> Iterator[ConsoleServer]:
    """`make serve` in `root`, with the embedded worker; `settings` are extra SOUNDSTAGE_*
    variables (names without the prefix)."""
    port = free_port()
    env = fresh_serve_env(root, port)
    env.update(
        # A person clicking around spends requests fast; the limits are tested elsewhere.
        SOUNDSTAGE_RATE_LIMITS__SANDBOX="100000/minute",
        SOUNDSTAGE_RATE_LIMITS__PRODUCTION="100000/minute",
        # A job a page set off (a voice preview) may still run when the module ends: its
        # graceful stop is tests/jobs/test_shutdown.py's to test, not a wait here.
        SOUNDSTAGE_JOBS__SHUTDOWN_TIMEOUT_SECONDS="2",
        # Models load on the first job that needs one, not in every worker process at start.
        SOUNDSTAGE_JOBS__PRELOAD_MODELS="false",
    )
    env.update({f"SOUNDSTAGE_{name}": value for name, value in settings.items()})
    with fresh_serve(root, env, port, demo=True):
        demo = json.loads((root / "data" / "demo-key.json").read_text())
        yield ConsoleServer(f"http://127.0.0.1:{port}", demo["key"], demo["account_id"], env, root)


# The kinds the service registers, read in a fresh interpreter: a test process also holds the
# kinds other test files register (plugins', the realtime core's test session).
_SERVICE_KINDS = """
import json
from soundstage import app_tasks
from soundstage.jobs import handlers
app_tasks.install()
print(json.dumps([kind.name for kind in handlers.kinds()]))
"""


def service_kinds(server: ConsoleServer) -> set[str]:
    """Every job kind the live server's service runs (its operations, for credits)."""
    listed = subprocess.run(
        [sys.executable, "-c", _SERVICE_KINDS],
        env=server.env,
        check=True,
        capture_output=True,
        text=True,
    )
    return set(json.loads(listed.stdout))


@contextmanager
def chromium(args: Sequence[str] = ()) -> Iterator[Browser]:
    """Debian's Chromium, headless (Playwright downloads no browser: it is given this one);
    `args` are extra command-line switches (a fake microphone, say)."""
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} is missing: `make install` installs Debian's chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            # As root in a container Chromium's sandbox cannot start; autoplay lets a test play
            # audio without a user gesture's timing.
            args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required", *args],
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class ConsolePage:
    """One browser tab on the console, watching for console errors and page exceptions."""

    page: Page
    server: ConsoleServer
    errors: list[str] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def allow_error(self, pattern: str) -> None:
        """An error the test provokes on purpose (a 4xx it asserts on, say)."""
        self.allowed.append(re.compile(pattern))

    def unexpected_errors(self) -> list[str]:
        return [e for e in self.errors if not any(p.search(e) for p in self.allowed)]

    def open(self, route: str = "/") -> Page:
        """The console at `#route`, signed in with the server's demo key unless signed out."""
        self.page.goto(f"{self.server.url}/console/#{route}")
        return self.page

    def sign_in(self, key: str | None = None) -> Page:
        self.page.goto(f"{self.server.url}/console/")
        self.page.get_by_label("API key").fill(key or self.server.key)
        self.page.get_by_role("button", name="Sign in").click()
        self.page.get_by_role("navigation", name="Console").wait_for()
        return self.page

    def screenshot(self, name: str) -> list[Path]:
        """`name`.png at 1280 px and `name`-phone.png at 390 px, the whole page each."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        size = self.page.viewport_size or DESKTOP
        paths = []
        for suffix, viewport in (("", DESKTOP), ("-phone", PHONE)):
            self.page.set_viewport_size(viewport)
            path = SCREENSHOTS / f"{name}{suffix}.png"
            self.page.screenshot(path=str(path), full_page=True)
            paths.append(path)
        self.page.set_viewport_size(size)
        return paths


@contextmanager
def console_page(browser: Browser, server: ConsoleServer) -> Iterator[ConsolePage]:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    watched = ConsolePage(page, server)

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            watched.errors.append(f"console: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: watched.errors.append(f"exception: {error}"))
    try:
        yield watched
    finally:
        context.close()
    unexpected = watched.unexpected_errors()
    assert not unexpected, f"the console logged errors: {unexpected}"
