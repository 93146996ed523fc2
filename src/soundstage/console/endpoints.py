"""GET /console: the web console's static files. The single-page app routes by URL fragment
(`/console/#/jobs/job_…`), so the server answers index.html and the hashed assets Vite built;
nothing here reads an account: every request the console makes goes through the public API."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from starlette.responses import FileResponse, RedirectResponse

from soundstage.console.errors import ConsoleFileNotFound, ConsoleNotBuilt
from soundstage.core.routing import UnitOfWorkRoute

router = APIRouter(prefix="/console", include_in_schema=False, route_class=UnitOfWorkRoute)

DIST = Path(__file__).parent / "dist"
# The console's own code only; media may come from the S3 endpoint's presigned URLs.
_CSP = (
    "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob: data: http: https:; "
    "connect-src 'self'; style-src 'self'; script-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


def _file(path: Path, cache: str) -> FileResponse:
    return FileResponse(
        path,
        headers={
            "Cache-Control": cache,
            "Content-Security-Policy": _CSP,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        },
    )


@router.get("")
def console_root() -> RedirectResponse:
    return RedirectResponse("/console/", status_code=308)


@router.get("/")
def console_index() -> FileResponse:
    index = DIST / "index.html"
    if not index.is_file():
        raise ConsoleNotBuilt(
            "The console is not built: run `make install` (it builds console/ with npm)."
        )
    return _file(index, "no-cache")


@router.get("/assets/{name}")
def console_asset(name: str) -> FileResponse:
    # Vite's output is flat and its names are hashed: cache for a year.
    path = DIST / "assets" / name
    if "/" in name or name.startswith(".") or not path.is_file():
        raise ConsoleFileNotFound(f"No console file `{name}`.", param="name")
    return _file(path, "public, max-age=31536000, immutable")
