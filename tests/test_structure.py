"""The tests' own structure: a test module or a conftest is never imported as a library.
Shared helpers live in `tests/support/` (fixtures stay in the conftest files), so a test
file can be moved, split or run alone without dragging another test file's tests along."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.processes import REPO_ROOT

TESTS = REPO_ROOT / "tests"


def _is_test_or_conftest(module: str) -> bool:
    """`tests.….test_x` or `tests.….conftest`, for a module of this tree."""
    parts = module.split(".")
    if parts[0] != "tests":
        return False
    last = parts[-1]
    return last == "conftest" or (last.startswith("test_") and _exists(parts))


def _exists(parts: list[str]) -> bool:
    path = REPO_ROOT.joinpath(*parts)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_modules(source: str) -> list[tuple[int, str]]:
    """(line, module) of every module a Python source imports, `from a import b` counted as
    `a.b` too when b is a module of this tree."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def cross_imports(root: Path) -> list[str]:
    """`path:line: module` for each import of a test module or a conftest under root."""
    return [
        f"{path.relative_to(root.parent)}:{line}: {module}"
        for path in sorted(root.rglob("*.py"))
        for line, module in imported_modules(path.read_text())
        if _is_test_or_conftest(module)
    ]


def test_no_test_module_or_conftest_is_imported() -> None:
    offenders = cross_imports(TESTS)
    assert not offenders, (
        "import helpers from tests/support/ (fixtures come from conftest files by name):\n"
        + "\n".join(offenders)
    )


def test_the_check_sees_every_form_of_import(tmp_path: Path) -> None:
    """The scan is not vacuous: each way of importing a test module or a conftest is caught,
    and the support package, a non-test helper module and a library are not."""
    caught = [
        "from tests.accounts.test_auth import something",
        "import tests.accounts.test_auth",
        "from tests.accounts import test_auth",
        "from tests.conftest import create_customer",
        "from tests.webhooks.conftest import anything",
        "from tests import conftest",
        "    from tests.conftest import settings_env",  # inside a function
    ]
    allowed = [
        "from tests.support.api import assert_error",
        "from tests.speech.audio_fixtures import librivox_clips",
        "from tests.speech import mixtures",
        "from soundstage.core import errors",
        "import pytest",
    ]
    for n, line in enumerate(caught + allowed):
        body = f"def f():\n{line}\n" if line.startswith(" ") else f"{line}\n"
        (tmp_path / f"case_{n}.py").write_text(body)
    flagged = {Path(entry.split(":")[0]).name for entry in cross_imports(tmp_path)}
    assert flagged == {f"case_{n}.py" for n in range(len(caught))}
