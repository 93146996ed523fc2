"""The console's modules import one way: routes.ts imports the pages, and no module imports
a page, another page's style sheet or routes.ts back (what pages share, `PageProps` and
`StatusBadge`, has a module of its own), so the module graph has no circle through the
routes."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.processes import REPO_ROOT

SOURCE = REPO_ROOT / "console" / "src"
ROUTES = SOURCE / "routes"
# `import … from "./x"` and `import "./x.css"`: the relative imports of a module.
IMPORT = re.compile(r'^import\b[^;]*?"(?P<target>\.{1,2}/[^"]+)";', re.M | re.S)


def imports(path: Path) -> set[Path]:
    """The modules `path` imports (a script without its extension, a style sheet with)."""
    return {
        (path.parent / match["target"]).resolve() for match in IMPORT.finditer(path.read_text())
    }


def page_of(path: Path) -> str:
    """The page a module under pages/ belongs to: `talent` for talent-gate.tsx."""
    return path.stem.split("-")[0]


def modules() -> list[Path]:
    return sorted(p for p in SOURCE.rglob("*") if p.suffix in (".ts", ".tsx"))


def test_no_module_imports_a_page_or_the_routes() -> None:
    pages = {target for target in imports(ROUTES.with_suffix(".ts")) if "pages" in target.parts}
    assert len(pages) >= 7  # every page routes.ts routes
    styles = {page.with_suffix(".css") for page in pages}
    backwards = {
        str(path.relative_to(SOURCE)): sorted(
            str(target.relative_to(SOURCE))
            for target in imports(path)
            if target in pages | {ROUTES} or (target in styles and page_of(target) != page_of(path))
        )
        for path in modules()
        if path.with_suffix("") != ROUTES and path.name != "main.tsx"
    }
    assert {path: targets for path, targets in backwards.items() if targets} == {}


def test_the_scan_reads_imports(tmp_path: Path) -> None:
    module = tmp_path / "pages" / "a.tsx"
    module.parent.mkdir()
    module.write_text(
        'import { x } from "./b";\nimport type { P } from "../routes";\n'
        'import {\n  y,\n} from "../c";\nimport "./a.css";\n'
    )
    assert imports(module) == {
        tmp_path / "pages" / "b",
        tmp_path / "routes",
        tmp_path / "c",
        tmp_path / "pages" / "a.css",
    }
    assert page_of(Path("pages/talent-gate.tsx")) == page_of(Path("pages/talent.css"))
