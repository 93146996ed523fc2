"""MkDocs hooks of the documentation site (mkdocs.yml): the API reference rendered from the
service's own OpenAPI document (the one `/openapi.json` serves), and the console's screenshots
as the browser tests last made them (`build/screenshots/`, so they never go stale)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "build" / "screenshots"
REFERENCE_PAGE = "api-reference.md"
MARKER = "<!-- openapi -->"
REF = "#/components/schemas/"
METHODS = ("get", "post", "put", "patch", "delete")
# The API's surfaces, in the order the reference lists them: (path prefix, title).
SURFACES = (
    ("/api/v1/", "Native API (`/api/v1`)"),
    ("/v1/", "OpenAI-compatible API (`/v1`)"),
    ("/elevenlabs/", "ElevenLabs-compatible API (`/elevenlabs`)"),
    ("/", "Public and operations paths"),
)


def openapi_document() -> dict[str, Any]:
    """The service's OpenAPI document, made by the app as `soundstage serve` builds it, with
    a throwaway data directory (the build touches no database)."""
    from soundstage.app import create_app
    from soundstage.config import Settings

    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(data_dir=Path(scratch))
        document: dict[str, Any] = create_app(settings).openapi()
    return document


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the screenshots the console's browser tests saved, under `screenshots/`."""
    for path in sorted(SCREENSHOTS.glob("*.png")):
        files.append(File.generated(config, f"screenshots/{path.name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri != REFERENCE_PAGE:
        return markdown
    return markdown.replace(MARKER, render_reference(openapi_document()))


def render_reference(document: dict[str, Any]) -> str:
    schemas: dict[str, Any] = document.get("components", {}).get("schemas", {})
    grouped: dict[str, list[str]] = {title: [] for _, title in SURFACES}
    for path, item in document["paths"].items():
        title = next(t for prefix, t in SURFACES if path.startswith(prefix))
        for method in METHODS:
            if method in item:
                grouped[title].extend(_operation(method, path, item[method], schemas))
    out = [f"Version {document['info']['version']}.", ""]
    for title, lines in grouped.items():
        if lines:
            out += [f"## {title}", "", *lines]
    return "\n".join(out)


def _operation(method: str, path: str, op: dict[str, Any], schemas: dict[str, Any]) -> list[str]:
    lines = [f"### `{method.upper()} {path}`", ""]
    if op.get("summary"):
        lines += [f"**{op['summary']}**", ""]
    if op.get("description"):
        lines += [_plain(op["description"]), ""]
    parameters = op.get("parameters", [])
    if parameters:
        lines += [
            "| Parameter | In | Type | Required | Description |",
            "| --- | --- | --- | --- | --- |",
        ]
        for p in parameters:
            lines.append(
                f"| `{p['name']}` | {p['in']} | {_type(p.get('schema', {}))} | "
                f"{'yes' if p.get('required') else ''} | {_cell(p.get('description', ''))} |"
            )
        lines.append("")
    body = op.get("requestBody")
    if body:
        for content_type, media in body.get("content", {}).items():
            schema = media.get("schema", {})
            lines += [f"Request body (`{content_type}`): {_type(schema)}", ""]
            lines += _fields(schema, schemas)
    responses = op.get("responses", {})
    if responses:
        lines += ["| Status | Description | Body |", "| --- | --- | --- |"]
        for status, answer in responses.items():
            kinds = [
                f"`{ct}` {_type(m.get('schema', {}))}"
                for ct, m in answer.get("content", {}).items()
            ]
            lines.append(
                f"| {status} | {_cell(answer.get('description', ''))} | {'; '.join(kinds)} |"
            )
        lines.append("")
    return lines


def _fields(schema: dict[str, Any], schemas: dict[str, Any]) -> list[str]:
    """A request body's fields, one level deep."""
    if "$ref" in schema:
        schema = schemas.get(schema["$ref"].removeprefix(REF), {})
    properties: dict[str, Any] = schema.get("properties", {})
    if not properties:
        return []
    required = set(schema.get("required", []))
    lines = ["| Field | Type | Required | Description |", "| --- | --- | --- | --- |"]
    for name, prop in properties.items():
        lines.append(
            f"| `{name}` | {_type(prop)} | {'yes' if name in required else ''} | "
            f"{_cell(prop.get('description', ''))} |"
        )
    return [*lines, ""]


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return f"`{schema['$ref'].removeprefix(REF)}`"
    for union in ("anyOf", "oneOf"):
        if union in schema:
            return " or ".join(_type(s) for s in schema[union])
    if "enum" in schema:
        return ", ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_type(schema.get('items', {}))}"
    if kind is None:
        return "any"
    fmt = schema.get("format")
    return f"{kind} ({fmt})" if fmt else str(kind)


def _cell(text: str) -> str:
    return _plain(text).replace("|", "\\|").replace("\n", " ")


def _plain(text: str) -> str:
    """A description as Markdown that cannot break the page: no headings, no raw HTML (a `<`
    outside a code span is escaped; inside one it is shown as written)."""
    return "\n".join(_escape_html(line.lstrip("#")) for line in text.splitlines())


def _escape_html(line: str) -> str:
    parts = line.split("`")
    return "`".join(part if i % 2 else part.replace("<", "&lt;") for i, part in enumerate(parts))
