"""The job system knows no feature: no module under `soundstage/jobs` imports a feature
package, at module top or inside a function, by statement or by `importlib`. Features reach
it the other way (they register job kinds and tasks, the composition root `app_tasks` wires
credits, the media store and the webhooks listener in)."""

from __future__ import annotations

import ast
from pathlib import Path

import soundstage
from soundstage import app_tasks

PACKAGE = Path(soundstage.__file__).parent
JOBS = PACKAGE / "jobs"
# What the job system may import from the service: the shared layers and itself.
ALLOWED = (
    "soundstage.core",
    "soundstage.media",
    "soundstage.config",
    "soundstage.models",
    "soundstage.idempotency",
    "soundstage.jobs",
)


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def imported_modules(source: str, module: str) -> list[tuple[int, str]]:
    """Every module that `source` (the module `module`) imports, as (line, dotted name):
    `import x`, `from x import y` (each `x.y`, since y may be a module), relative imports
    resolved, anywhere in the file, and `importlib.import_module("…")` of a literal name."""
    package = module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, module)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def is_allowed(name: str) -> bool:
    if name.split(".")[0] != "soundstage":
        return True  # the standard library and third-party packages
    return name in ("soundstage.__version__",) or any(
        name == allowed or name.startswith(f"{allowed}.") for allowed in ALLOWED
    )


def test_the_job_system_imports_no_feature() -> None:
    modules = sorted(JOBS.rglob("*.py"))
    assert len(modules) > 10  # the walk found the package
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name}"
        for path in modules
        for line, name in imported_modules(path.read_text(), module_name(path))
        if not is_allowed(name)
    ]
    assert wrong == []


def test_the_check_sees_imports_inside_functions_and_by_name() -> None:
    source = (
        "import importlib\n"
        "from . import queue\n"
        "from ..core import db\n"
        "def later():\n"
        "    from soundstage.voices import previews\n"
        "    from .. import webhooks\n"
        "    importlib.import_module('soundstage.credits.service')\n"
    )
    names = [name for _, name in imported_modules(source, "soundstage.jobs.probe")]
    assert [name for name in names if not is_allowed(name)] == [
        "soundstage.voices.previews",
        "soundstage.webhooks",
        "soundstage.credits.service",
    ]
    assert {"soundstage.jobs.queue", "soundstage.core.db"} <= set(names)


def test_every_registration_is_a_features_own() -> None:
    """The one list of the calls that declare job kinds and tasks is the composition root's,
    and each of them is a feature's own `tasks.register`."""
    assert app_tasks.REGISTRATIONS
    for register in app_tasks.REGISTRATIONS:
        name = register.__module__
        assert not name.startswith("soundstage.jobs"), name
        assert name.endswith(".tasks"), name
        assert register.__name__ == "register", name
        assert (PACKAGE.parent / Path(*name.split("."))).with_suffix(".py").is_file(), name
