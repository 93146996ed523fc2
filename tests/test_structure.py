"""The tests' own structure. Of the tests' tree, a test file (a conftest, a helper, a bench)
imports `tests.support` only: fixtures come from conftest files by name, so a test file can be
moved, split or run alone without dragging another's tests or helpers along. And the folders
mirror the source: a folder of tests is named after a package of `src/soundstage/` at the same
place (an engine's tests under `tests/engines/`, a feature's under its feature's folder).

Syntax and folder checks, not import-linter contracts: import-linter's graph is the service's
package (`root_package = "soundstage"`), and where a test file sits is no import at all."""

from __future__ import annotations

import ast
import os
from collections.abc import Collection, Iterator
from pathlib import Path

import soundstage
from tests.support.processes import REPO_ROOT

TESTS = REPO_ROOT / "tests"
SOURCE = Path(soundstage.__file__).parent
# Folders of tests that mirror no package, each with its reason.
NOT_MIRRORED = {
    "support": "the helpers the tests import",
    "fixtures": "recordings and reference files the tests read",
    "faults": "whole deployments (servers, workers, Redis) broken mid-job: no one package's",
    "speech/roundtrip": "the text front end heard back through the TTS API, voice by voice",
    "frameworks": "voice-agent frameworks' plugins against a live server, in their own venvs",
    "compat/js": "the JavaScript SDKs' scripts and their npm lock, run by Node",
}
# Packages npm installs (tests/compat/js): not the tests' tree, and never walked, as another
# test process may be installing them meanwhile.
INSTALLED = "node_modules"


def tree(root: Path) -> Iterator[Path]:
    """Every folder and file under `root`, but what lies in an INSTALLED folder."""
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if name != INSTALLED]
        yield from (Path(folder) / name for name in [*subfolders, *files])


def imported_modules(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) of every module a Python source of `package` imports, anywhere in it:
    `from a import b` counted as `a.b` too (b may be a module), relative imports resolved."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, package)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _absolute(module: str | None, level: int, package: str) -> str:
    if not level:
        return module or ""
    parts = package.split(".")
    base = parts[: len(parts) - level + 1]
    return ".".join([*base, module] if module else base)


def is_outside_support(module: str) -> bool:
    """A module of the tests' tree other than `tests.support` and its modules (the bare
    `tests` package of `from tests import support` is neither)."""
    parts = module.split(".")
    return parts[0] == "tests" and len(parts) > 1 and parts[1] != "support"


def cross_imports(root: Path) -> list[str]:
    """`path:line: module` for each import, in a Python file under root, of a module of the
    tests' tree outside `tests.support`."""
    return [
        f"{path.relative_to(root.parent)}:{line}: {module}"
        for path in sorted(path for path in tree(root) if path.suffix == ".py")
        for line, module in imported_modules(
            path.read_text(), ".".join(path.relative_to(root.parent).parent.parts)
        )
        if is_outside_support(module)
    ]


def unmirrored_folders(tests: Path, source: Path, allowed: Collection[str]) -> list[str]:
    """The folders under `tests` (relative to it) that are no package at the same place
    under `source`, leaving out the `allowed` ones with their subfolders."""
    found: list[str] = []
    for folder in sorted(path for path in tree(tests) if path.is_dir()):
        relative = folder.relative_to(tests)
        if folder.name == "__pycache__" or folder.name.startswith("."):
            continue
        if any(Path(name) == relative or Path(name) in relative.parents for name in allowed):
            continue
        if not (source / relative / "__init__.py").is_file():
            found.append(relative.as_posix())
    return found


def test_tests_and_benches_import_only_the_support_helpers() -> None:
    offenders = cross_imports(TESTS) + cross_imports(REPO_ROOT / "bench")
    assert not offenders, (
        "import helpers from tests/support/ (fixtures come from conftest files by name):\n"
        + "\n".join(offenders)
    )


def test_the_check_sees_every_form_of_import(tmp_path: Path) -> None:
    """The scan is not vacuous: each way of importing from the tests' tree outside
    `tests/support/` (a test module, a conftest, a helper left beside its tests) is caught,
    and the support package, its modules, the bare `tests` package and libraries are not."""
    caught = [
        "from tests.accounts.test_auth import something",
        "import tests.accounts.test_auth",
        "from tests.accounts import test_auth",
        "from tests.conftest import create_customer",
        "from tests.webhooks.conftest import anything",
        "from tests import conftest",
        "from tests.speech.audio_fixtures import librivox_clips",
        "from tests.speech import mixtures",
        "import tests.faults.deployment",
        "from . import mixtures",  # beside the test, relatively
        "from ..jobs.plugin import ToneResult",
        "    from tests.conftest import settings_env",  # inside a function
    ]
    allowed = [
        "from tests.support.api import assert_error",
        "from tests.support import mixtures",
        "import tests.support.audio_fixtures",
        "from .. import support",
        "from ..support.api import assert_error",
        "from soundstage.core import errors",
        "import pytest",
    ]
    folder = tmp_path / "tests" / "speech"
    folder.mkdir(parents=True)
    for n, line in enumerate(caught + allowed):
        body = f"def f():\n{line}\n" if line.startswith(" ") else f"{line}\n"
        (folder / f"case_{n}.py").write_text(body)
    flagged = {Path(entry.split(":")[0]).name for entry in cross_imports(tmp_path / "tests")}
    assert flagged == {f"case_{n}.py" for n in range(len(caught))}


def test_test_folders_mirror_the_source() -> None:
    folders = [path for path in tree(TESTS) if path.is_dir()]
    assert len(folders) > 30  # the walk found the tree, engines and features both
    assert all((TESTS / name).is_dir() for name in NOT_MIRRORED)  # no reason outlives its folder
    assert unmirrored_folders(TESTS, SOURCE, NOT_MIRRORED) == []


def test_the_mirror_check_sees_a_folder_out_of_place(tmp_path: Path) -> None:
    source, tests = tmp_path / "src", tmp_path / "tests"
    for package in ("speech", "speech/stt", "engines", "engines/transcribers"):
        (source / package).mkdir(parents=True)
        (source / package / "__init__.py").write_text("")
    (source / "engines" / "stt").mkdir()  # a folder, not a package
    for folder in (
        "speech/stt",
        "speech/frontend",
        "engines/transcribers",
        "engines/stt",
        "support/music",
        "fixtures/librivox",
        "speech/__pycache__",
        "speech/node_modules/openai",
    ):
        (tests / folder).mkdir(parents=True)
    allowed = {"support", "fixtures"}
    assert unmirrored_folders(tests, source, allowed) == ["engines/stt", "speech/frontend"]
