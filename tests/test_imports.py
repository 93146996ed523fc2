"""What import-linter cannot check about the service's imports (its contracts in
pyproject.toml, run by `lint-imports`, are the one statement of the layers and of who may
import what):

- No import cycle between modules. `acyclic_siblings` compares a package's children with one
  another, never with the package itself: `soundstage.jobs` importing `soundstage.jobs.queue`,
  which imports `soundstage.jobs`, passes it. Imports inside functions count (a lazy import is
  still a dependency).
- Every feature is under the contract that lets other features reach its service only: a
  contract lists its modules, and a new feature left off the list would pass unseen.
- No module of the service is imported by a literal name (`importlib.import_module("…")`):
  import-linter reads import statements, and such an import passes every contract unseen.
- Every endpoints module, HTTP or WebSocket (`endpoints`, `realtime_endpoints`), is under the
  contract that lets the app alone import it: a pattern that missed one would pass unseen.
- An API process (`soundstage.app`) imports none of the libraries only audio work uses:
  import-linter sees imports of the service's own modules, not when a library is loaded."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from collections.abc import Mapping, Set
from pathlib import Path
from typing import Any

import grimp

import soundstage
from tests.support.processes import REPO_ROOT

SOURCE = Path(soundstage.__file__).parent

ImportGraph = Mapping[str, Set[str]]


def import_graph() -> dict[str, set[str]]:
    """Each module of soundstage, with the modules of soundstage it imports."""
    graph = grimp.build_graph("soundstage", cache_dir=None)
    return {name: set(graph.find_modules_directly_imported_by(name)) for name in graph.modules}


def cycles(graph: ImportGraph) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan's algorithm, without
    recursion), each sorted, sorted by their first module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[module])
                if low[module] == index[module]:
                    group = _pop_group(stack, on_stack, module)
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[module] = min(low[module], index[child])
    return sorted(found)


def _pop_group(stack: list[str], on_stack: set[str], head: str) -> list[str]:
    group: list[str] = []
    while True:
        module = stack.pop()
        on_stack.discard(module)
        group.append(module)
        if module == head:
            return group


def test_no_module_leads_back_to_itself() -> None:
    graph = import_graph()
    assert len(graph) > 200  # the walk found the package
    assert cycles(graph) == []


def test_the_finder_sees_every_cycle() -> None:
    graph = {
        "a": {"b"},
        "b": {"c", "d"},
        "c": {"a"},
        "d": {"e"},
        "e": {"d"},
        "f": {"a", "f"},  # a module importing itself is not a cycle of modules
        "g": set(),
    }
    assert cycles(graph) == [["a", "b", "c"], ["d", "e"]]
    assert cycles({"a": {"b"}, "b": {"c"}}) == []


def test_every_feature_shows_other_features_its_service_only() -> None:
    """A package with endpoints is a feature (the job system's polling endpoint aside); each
    is protected by the import-linter contract that lets other features import its service
    and errors only."""
    protected = contract("a feature imports another")
    features = {
        module.removesuffix(".endpoints")
        for module in import_graph()
        if module.endswith(".endpoints") and module != "soundstage.jobs.endpoints"
    }
    assert features == set(protected["protected_modules"])


def imported_by_name(source: str) -> list[tuple[int, str]]:
    """(line, name) of each module of the service (or a relative name) that `source` imports
    by a literal string: `importlib.import_module("…")`, `import_module("…")`, `__import__("…")`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _called(node.func) in ("import_module", "__import__"):
            name = node.args[0] if node.args else None
            literal = name.value if isinstance(name, ast.Constant) else None
            if isinstance(literal, str) and literal.split(".")[0] in ("soundstage", ""):
                found.append((node.lineno, literal))
    return sorted(found)


def _called(function: ast.expr) -> str | None:
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else None


def test_no_module_is_imported_by_a_literal_name() -> None:
    modules = sorted(SOURCE.rglob("*.py"))
    assert len(modules) > 200  # the walk found the package
    found = [
        f"{path.relative_to(SOURCE.parent)}:{line}: {name}"
        for path in modules
        for line, name in imported_by_name(path.read_text())
    ]
    assert found == [], "import it by a statement, which import-linter sees"


def test_the_check_sees_imports_by_name() -> None:
    source = (
        "import importlib\n"
        "from importlib import import_module\n"
        "def later(name):\n"
        "    importlib.import_module('soundstage.credits.service')\n"
        "    import_module('.previews', 'soundstage.voices')\n"
        "    __import__('soundstage.webhooks')\n"
        "    importlib.import_module(name)\n"
        "    importlib.import_module('json')\n"
    )
    assert imported_by_name(source) == [
        (4, "soundstage.credits.service"),
        (5, ".previews"),
        (6, "soundstage.webhooks"),
    ]


def contract(name_start: str) -> dict[str, Any]:
    """The import-linter contract (pyproject.toml) whose name starts so."""
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (found,) = [entry for entry in contracts if entry["name"].startswith(name_start)]
    return dict(found)


def covered(module: str, patterns: list[str]) -> bool:
    """Whether an import-linter module expression of `patterns` names `module` (`*` one
    module name, `**` one or more)."""
    for pattern in patterns:
        parts = [
            "[^.]+" if part == "*" else r"[^.]+(\.[^.]+)*" if part == "**" else re.escape(part)
            for part in pattern.split(".")
        ]
        if re.fullmatch(r"\.".join(parts), module):
            return True
    return False


def test_every_endpoints_module_is_mounted_by_the_app_only() -> None:
    """HTTP and WebSocket endpoints alike (`endpoints`, `realtime_endpoints`): each is under
    the contract that lets `soundstage.app` alone import it."""
    mounted = contract("endpoints are mounted by the app only")
    endpoints = sorted(m for m in import_graph() if m.rpartition(".")[2].endswith("endpoints"))
    assert "soundstage.speech.stt.realtime_endpoints" in endpoints
    assert len(endpoints) > 25
    assert [m for m in endpoints if not covered(m, mounted["protected_modules"])] == []


def test_the_coverage_check_reads_wildcards_as_import_linter_does() -> None:
    patterns = ["soundstage.**.endpoints"]
    assert covered("soundstage.agents.endpoints", patterns)
    assert covered("soundstage.speech.tts.endpoints", patterns)
    assert not covered("soundstage.speech.tts.realtime_endpoints", patterns)
    assert not covered("soundstage.endpoints", patterns)
    assert covered("soundstage.a.b", ["soundstage.*.b"])
    assert not covered("soundstage.a.c.b", ["soundstage.*.b"])


# Libraries only audio work (a worker, a realtime slot) uses, each most of a second to import
# with what it pulls in: the engines import them where they use them, so that an API process
# starts in about 2.2 s rather than 3.4 s and in 75 MB less (`import soundstage.app`, measured
# on 2 cores).
WORKER_ONLY_LIBRARIES = frozenset({"scipy", "pyloudnorm", "faster_whisper", "ctranslate2", "torch"})


def test_an_api_process_imports_no_library_only_audio_work_uses() -> None:
    program = "import sys, soundstage.app; print(*sorted(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", program], check=True, capture_output=True, text=True, cwd=REPO_ROOT
    )
    loaded = {module.split(".")[0] for module in done.stdout.split()}
    assert "soundstage" in loaded
    assert not loaded & WORKER_ONLY_LIBRARIES, sorted(loaded & WORKER_ONLY_LIBRARIES)
