"""GET /guide: the documentation site (docs/, built by `make docs` with MkDocs into
`build/site`), served as static files beside the interactive API reference at /docs. Nothing
here reads an account; the pages are public, metered per client address like the console."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import FileResponse, RedirectResponse

from soundstage.core.deps import SettingsDep
from soundstage.core.routing import UnitOfWorkRoute
from soundstage.guide.errors import GuideNotBuilt, GuidePageNotFound

router = APIRouter(prefix="/guide", include_in_schema=False, route_class=UnitOfWorkRoute)

# MkDocs Material's pages carry inline scripts and styles of their own; nothing comes from
# another origin (the theme's web fonts are off in mkdocs.yml).
_CSP = (
    "default-src 'self'; img-src 'self' data:; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; font-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
)


@router.get("")
def guide_root() -> RedirectResponse:
    return RedirectResponse("/guide/", status_code=308)


@router.get("/{path:path}", response_model=None)
def guide_page(path: str, settings: SettingsDep) -> FileResponse | RedirectResponse:
    site = settings.resolved_guide_dir.resolve()
    if not (site / "index.html").is_file():
        raise GuideNotBuilt("The documentation site is not built: run `make docs`.")
    target = (site / path).resolve()
    if target.is_dir():
        if path and not path.endswith("/"):  # the page's relative links need the slash
            return RedirectResponse(f"/guide/{path}/", status_code=308)
        target = target / "index.html"
    if not target.is_relative_to(site) or not target.is_file():
        raise GuidePageNotFound(f"No page `/guide/{path}`.", param="path")
    return FileResponse(
        target,
        headers={
            "Cache-Control": "no-cache",
            "Content-Security-Policy": _CSP,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        },
    )
