"""The documentation runs: every `sh` and `python` block of the README and of the site's pages
(in mkdocs.yml's navigation order) is executed in that order and in one shell's state (a
variable one block sets, the next uses), against a live `soundstage serve` set up as
`make serve` sets it up (a fresh SQLite database and data directory, migrations, the demo
catalog, the funded sandbox key of `soundstage demo`). Every request must answer 2xx, and no
job it shows may have failed. Blocks that are not for this shell (a synopsis, an operator's
command for another machine) are fenced `text`."""

from __future__ import annotations

import html
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import markdown
import pytest
import yaml
from mkdocs.config import load_config

from tests.support.processes import REPO_ROOT, free_port, fresh_serve, fresh_serve_env

README = REPO_ROOT / "README.md"
_FENCE = re.compile(r"^```(sh|python)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_CURL = re.compile(r"(?<![\w-])curl ")
# Every curl call reports its status on stderr and fails the block on an HTTP error (its body is
# kept for the message); `set -a` exports every variable a block sets, for the next block.
_PRELUDE = """set -euo pipefail -a
curl() {
  local rc=0
  command curl --silent --show-error --fail-with-body \\
    --write-out '%{stderr}HTTP %{http_code} %{method} %{url_effective}\\n' "$@" || rc=$?
  echo
  return $rc
}
"""


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    heading: str
    code: str

    @property
    def curls(self) -> int:
        return len(_CURL.findall(self.code))

    @property
    def where(self) -> str:
        return f"{self.page} line {self.line} ({self.heading})"


def pages() -> list[Path]:
    """The README, then the site's pages in the order of its navigation."""

    def walk(entries: list[Any]) -> Iterator[str]:
        for entry in entries:
            target = next(iter(entry.values())) if isinstance(entry, dict) else entry
            if isinstance(target, list):
                yield from walk(target)
            else:
                yield target

    nav = yaml.safe_load((REPO_ROOT / "mkdocs.yml").read_text())["nav"]
    return [README, *(REPO_ROOT / "docs" / page for page in walk(nav))]


def blocks_of(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in _FENCE.finditer(text):
        language, code = match.groups()
        if language == "python":  # run by the virtualenv's interpreter, as a reader would
            code = f".venv/bin/python - <<'PY'\n{code}PY\n"
        before = text[: match.start()]
        headings = re.findall(r"^#+ (.+)$", before, flags=re.MULTILINE)
        name = str(page.relative_to(REPO_ROOT))
        blocks.append(Block(name, before.count("\n") + 1, headings[-1] if headings else "", code))
    return blocks


BLOCKS = [block for page in pages() for block in blocks_of(page)]


@dataclass
class LiveServer:
    port: int
    env: dict[str, str]
    shell: Path
    workdir: Path


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """`make serve` on a fresh machine: migrate, load the demo catalog, serve with the embedded
    worker on SQLite (Huey on SQLite, no Redis), default limits."""
    root = tmp_path_factory.mktemp("readme")
    port = free_port()
    env = fresh_serve_env(root, port)
    with fresh_serve(root, env, port):
        workdir = root / "shell"
        workdir.mkdir()
        # The docs call the CLI as `.venv/bin/soundstage` from the checkout: the same
        # command here, whichever interpreter runs the tests.
        shim = root / "bin"
        shim.mkdir()
        (shim / "soundstage").write_text(
            f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m soundstage.cli "$@"\n'
        )
        (shim / "soundstage").chmod(0o755)
        # And `.venv/bin/python` (the SDK examples) as this interpreter, its packages included.
        (shim / "python").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
        (shim / "python").chmod(0o755)
        (workdir / ".venv").mkdir()
        (workdir / ".venv" / "bin").symlink_to(shim)
        yield LiveServer(port, env, root / "state.sh", workdir)


def test_every_guide_has_runnable_examples() -> None:
    """The README's first calls and every feature's page show calls that run."""
    with_examples = {block.page for block in BLOCKS if block.curls or "python" in block.code}
    for page in (
        "README.md",
        "docs/getting-started.md",
        "docs/text-to-speech.md",
        "docs/speech-to-text.md",
        "docs/isolation-and-voice-changer.md",
        "docs/dubbing.md",
        "docs/sound-and-music.md",
        "docs/daw-export.md",
        "docs/history.md",
        "docs/studios.md",
        "docs/workforce.md",
        "docs/agents.md",
        "docs/openai.md",
        "docs/elevenlabs.md",
        "docs/realtime.md",
        "docs/mcp.md",
        "docs/using-the-api.md",
    ):
        assert page in with_examples, f"no runnable example in {page}"
    for block in BLOCKS:
        assert "example.com/" not in block.code.replace("buyer@example.com", ""), (
            f"{block.where}: a placeholder URL that cannot work"
        )
        assert "127.0.0.1:8000/" not in block.code, f"{block.where}: call $BASE, not a fixed port"


def page_ids(page: Path) -> set[str]:
    """The ids MkDocs gives a page's elements: each heading's (the toc extension's slug, or its
    `{#id}`) and any other attr_list `{#id}`, rendered with mkdocs.yml's Markdown extensions and
    their settings (a `slugify` configured there included)."""
    config = load_config(str(REPO_ROOT / "mkdocs.yml"))
    renderer = markdown.Markdown(
        extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"]
    )
    rendered = renderer.convert(page.read_text(encoding="utf-8"))
    return {html.unescape(found) for found in re.findall(r'<[^>]*\sid="([^"]+)"', rendered)}


def test_the_readme_is_short_and_its_links_resolve() -> None:
    """Every file the README links to exists, and a `#fragment` into a page of the site is an id
    the built page has (the README's anchors are checked here; the site's own, by `mkdocs build
    --strict`)."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    links = re.findall(r"\]\(([^)#]+)(?:#([^)]*))?\)", text)
    assert links
    for target, fragment in links:
        if target.startswith(("http://", "https://")):
            continue
        assert (REPO_ROOT / target).exists(), f"README links to a missing {target}"
        if fragment and target.startswith("docs/") and target.endswith(".md"):
            assert unquote(fragment) in page_ids(REPO_ROOT / target), (
                f"README links to {target}#{fragment}, an anchor that page does not have"
            )


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: f"{Path(b.page).stem}-line{b.line}")
def test_docs_example_runs(live: LiveServer, block: Block) -> None:
    code = block.code.replace("127.0.0.1:8000", f"127.0.0.1:{live.port}")
    state = f"source {shlex.quote(str(live.shell))}\n" if live.shell.exists() else ""
    script = f"{_PRELUDE}{state}{code}\nset +a; export -p > {shlex.quote(str(live.shell))}\n"
    done = subprocess.run(
        ["bash", "-c", script],
        env=live.env,
        cwd=live.workdir,
        capture_output=True,
        text=True,
        timeout=600,
    )
    where = block.where
    assert done.returncode == 0, f"{where} failed:\n{done.stdout}\n{done.stderr}"
    statuses = re.findall(r"^HTTP (\d{3}) ", done.stderr, flags=re.MULTILINE)
    assert len(statuses) >= block.curls, f"{where}: {block.curls} curl calls, {statuses} ran"
    assert all(s.startswith("2") for s in statuses), f"{where}: {statuses}\n{done.stdout}"
    for line in done.stdout.splitlines():
        try:
            answer = json.loads(line)
        except ValueError:
            continue
        if isinstance(answer, dict):
            assert answer.get("status") != "failed", f"{where}: {line}"
            assert answer.get("error") is None, f"{where}: {line}"
