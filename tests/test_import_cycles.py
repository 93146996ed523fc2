"""No import cycle between modules of the service: following imports from any module never
leads back to it (imports inside functions count: a lazy import is still a dependency).
import-linter checks the packages (`acyclic_siblings` in pyproject.toml); this checks modules.
And every feature is under the contract that lets other features reach its service only."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Set

import grimp

from tests.support.processes import REPO_ROOT

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
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (protected,) = [c for c in contracts if c["name"].startswith("a feature imports another")]
    features = {
        module.removesuffix(".endpoints")
        for module in import_graph()
        if module.endswith(".endpoints") and module != "soundstage.jobs.endpoints"
    }
    assert features == set(protected["protected_modules"])
