"""The code's shape, checked: small modules, no import cycles, no flat groups of modules that a
package would hold, and dependencies that point one way (`app.py -> ui -> agent -> tools`).

Read from the source with `ast`, nothing imported."""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agent", "tools", "ui")
MAX_LINES = 350

# Modules allowed past MAX_LINES: the prompt is text the model reads, kept whole in one place.
LONG_MODULES = {
    "agent/prompts.py",
}

# Flat groups allowed: the tools are one module per tool, each named for the tool the model
# calls (`image_info`, `image_edit`), with the image references they share beside them.
PREFIX_GROUPS = {("tools", "image")}


def _sources() -> dict[str, Path]:
    """Every module of the three packages, by its dotted name."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


MODULES = _sources()


def _package_of(name: str, path: Path) -> list[str]:
    parts = name.split(".")
    return parts if path.name == "__init__.py" else parts[:-1]


def _imported(node: ast.AST, package: list[str]) -> set[str]:
    """The modules an import statement names, relative ones resolved; `from x import y` names
    `x.y` when that is a module of ours, else `x`."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    if not isinstance(node, ast.ImportFrom):
        return set()
    base = node.module or ""
    if node.level:
        stem = package[: len(package) - (node.level - 1)]
        base = ".".join(stem + ([node.module] if node.module else []))
    names = set()
    for alias in node.names:
        full = f"{base}.{alias.name}"
        names.add(full if full in MODULES else base)
    return names


def _is_type_checking(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _load_time_imports(name: str, path: Path) -> set[str]:
    """What importing the module imports: its module-level statements (inside `if` and `try`
    too), without `if TYPE_CHECKING:` blocks and function or class bodies."""
    package = _package_of(name, path)
    found: set[str] = set()

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if _is_type_checking(node):
                continue
            found.update(_imported(node, package))
            if isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                visit(node.orelse)
                visit(node.finalbody)
                for handler in node.handlers:
                    visit(handler.body)
            elif isinstance(node, ast.With):
                visit(node.body)

    visit(ast.parse(path.read_text("utf-8")).body)
    return found


def _all_imports(name: str, path: Path) -> set[str]:
    """Every import anywhere in the module, in functions and type-checking blocks too."""
    package = _package_of(name, path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        found.update(_imported(node, package))
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def connect(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in graph:
            if v not in index:
                connect(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def test_no_module_is_over_the_line_limit():
    long = {
        path.relative_to(ROOT).as_posix(): lines
        for path in MODULES.values()
        if (lines := len(path.read_text("utf-8").splitlines())) > MAX_LINES
    }
    unexpected = {p: n for p, n in long.items() if p not in LONG_MODULES}
    assert not unexpected, f"modules over {MAX_LINES} lines: {unexpected}"


def test_no_import_cycle():
    graph = {
        name: {m for m in _load_time_imports(name, path) if m in MODULES and m != name}
        for name, path in MODULES.items()
    }
    assert _cycles(graph) == []


def test_the_detector_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_flat_group_of_modules_shares_a_prefix():
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in MODULES.values():
        if path.name == "__init__.py" or path.stem.startswith("_"):
            continue
        folder = path.parent.relative_to(ROOT).as_posix()
        groups[(folder, path.stem.split("_")[0])].append(path.stem)
    flat = {
        f"{folder}/{prefix}_*": sorted(names)
        for (folder, prefix), names in groups.items()
        if len(names) >= 3 and (folder, prefix) not in PREFIX_GROUPS
    }
    assert not flat, f"modules a package would group: {flat}"


def test_dependencies_point_one_way():
    forbidden = {"tools": ("agent", "ui"), "agent": ("ui", "gradio")}
    wrong = []
    for name, path in MODULES.items():
        for imported in _all_imports(name, path):
            top = imported.split(".")[0]
            if top in forbidden.get(name.split(".")[0], ()):
                wrong.append(f"{name} imports {imported}")
    assert wrong == []
