"""The plan of the house, enforced: packages in one declared order, no import runs upward.

Each subpackage of ``skillopt_sleep`` is one layer; the top-level modules (models, errors, paths,
clock, redact, ...) are the core below them all. A module may import from its own package and from
any layer below it, never above: so there is no circle between packages either (file-level circles
are the business of ``test_shape``). Every import counts, also one inside a function or under
``TYPE_CHECKING``: a lazy import is still a dependency. ``skillopt_sleep/__init__.py`` is the
library's front door and may reach any layer (lazily).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "skillopt_sleep"
CORE = "(core)"

# Bottom to top. What each layer owns is said in its package's docstring.
LAYERS = (
    CORE,
    "settings",
    "store",
    "backends",
    "checks",
    "harvest",
    "agent_replay",
    "envs",
    "rollouts",
    "evidence",
    "rules",
    "optimize",
    "review",
    "night",
    "train",
    "sample",
    "schedule",
    "doctor",
    "setup",
    "compat",
    "testing",
    "cli",
)


def _module(path: Path) -> list[str]:
    parts = ["skillopt_sleep", *path.relative_to(PACKAGE).with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def _layer(module: list[str]) -> str:
    """``skillopt_sleep.night.stage`` -> ``night``; a top-level module -> the core."""
    if len(module) >= 2 and (PACKAGE / module[1]).is_dir():
        return module[1]
    return CORE


def _imports(path: Path) -> list[tuple[int, list[str]]]:
    here = _module(path)
    package = here if path.name == "__init__.py" else here[:-1]
    return _imports_of(path.read_text(encoding="utf-8"), package)


def _imports_of(text: str, package: list[str]) -> list[tuple[int, list[str]]]:
    """Every ``skillopt_sleep`` module (or package) a file imports, resolved, with its line."""
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name.split(".")) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = base + (node.module.split(".") if node.module else [])
            found.append((node.lineno, target))
            # ``from . import x`` names a module of that package
            found += [(node.lineno, [*target, a.name]) for a in node.names if not node.module]
    return [(line, t) for line, t in found if t[:1] == ["skillopt_sleep"] and len(t) > 1]


def _upward_imports() -> tuple[list[str], set[str]]:
    rank = {name: i for i, name in enumerate(LAYERS)}
    wrong: list[str] = []
    undeclared: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in (PACKAGE / "__init__.py", PACKAGE / "__main__.py"):  # the entry points
            continue
        source = _layer(_module(path))
        undeclared |= {source} - rank.keys()
        for line, target in _imports(path):
            layer = _layer(target)
            undeclared |= {layer} - rank.keys()
            if layer in rank and source in rank and rank[layer] > rank[source]:
                where = path.relative_to(PACKAGE.parent)
                wrong.append(f"{where}:{line}: {source} imports {'.'.join(target)} ({layer})")
    return wrong, undeclared


def test_every_package_has_a_declared_layer() -> None:
    _, undeclared = _upward_imports()
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert not undeclared and packages <= set(LAYERS), (
        f"declare the layer of {sorted(undeclared | (packages - set(LAYERS)))} in LAYERS"
    )


def test_no_import_runs_up_the_layers() -> None:
    wrong, _ = _upward_imports()
    assert not wrong, "imports that run upward (move the shared part down):\n" + "\n".join(wrong)


def test_every_package_says_what_it_owns() -> None:
    silent = [
        p.parent.name
        for p in sorted(PACKAGE.glob("*/__init__.py"))
        if not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert not silent, f"packages without a docstring saying what they own: {silent}"


def test_the_check_sees_upward_imports_however_written() -> None:
    """The resolver is not blind: relative, absolute, lazy and ``from . import`` forms all resolve."""
    text = (
        "from ..night import stage\n"
        "import skillopt_sleep.train.api\n"
        "def later():\n    from ..review.adopt import adopt\n"
        "from .. import night\n"
    )
    layers = sorted((line, _layer(t)) for line, t in _imports_of(text, ["skillopt_sleep", "store"]))
    assert layers == [(1, "night"), (2, "train"), (4, "review"), (5, "night")]
