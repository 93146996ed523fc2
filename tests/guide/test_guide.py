"""GET /guide serves the documentation site as `make docs` builds it (MkDocs, docs/), the API
reference rendered from the service's own OpenAPI document; unbuilt or unknown pages are the
usual 404 envelope, and nothing outside the site is ever served."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import Settings
from tests.support.processes import REPO_ROOT


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from this checkout (not strict: a checkout whose browser tests have not
    run yet has no screenshots; `make docs` is strict)."""
    out = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(out)],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    return out


@pytest.fixture(scope="module")
def guide(settings: Settings, site: Path) -> Iterator[TestClient]:
    app = create_app(settings.model_copy(update={"guide_dir": site}))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def test_the_site_is_served_at_guide(guide: TestClient) -> None:
    home = guide.get("/guide/")
    assert home.status_code == 200
    assert home.headers["content-type"].startswith("text/html")
    assert "frame-ancestors 'none'" in home.headers["content-security-policy"]
    assert "Get started" in home.text
    assert guide.get("/guide", follow_redirects=False).headers["location"] == "/guide/"
    # A page's relative links need its trailing slash.
    bare = guide.get("/guide/getting-started", follow_redirects=False)
    assert (bare.status_code, bare.headers["location"]) == (308, "/guide/getting-started/")
    assert "The two commands" in guide.get("/guide/getting-started/").text
    assert guide.get("/guide/search/search_index.json").json()["docs"]


def test_the_reference_is_rendered_from_the_openapi_document(guide: TestClient) -> None:
    page = guide.get("/guide/api-reference/").text
    paths = guide.get("/openapi.json").json()["paths"]
    for path in ("/api/v1/speech/tts", "/api/v1/speech/dialogue", "/v1/audio/speech"):
        assert path in paths
        assert f"POST {path}</code>" in page, path


def test_unknown_pages_and_escapes_are_404(guide: TestClient) -> None:
    missing = guide.get("/guide/no-such-page/")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "guide_page_not_found"
    for escape in ("/guide/..%2Fpyproject.toml", "/guide/%2E%2E/%2E%2E/pyproject.toml"):
        answer = guide.get(escape)
        assert answer.status_code == 404, escape
        assert "importlinter" not in answer.text


def test_an_unbuilt_site_is_404_saying_how_to_build_it(settings: Settings, tmp_path: Path) -> None:
    app = create_app(settings.model_copy(update={"guide_dir": tmp_path}))
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/guide/")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "guide_not_found"
    assert "make docs" in answer.json()["error"]["message"]
