"""A night is extended only through its public seams (``gate``, ``stages``, ``watch``): nothing
outside :mod:`skillopt_sleep.night.pipeline` subclasses ``Night`` or calls its private methods, so a
benchmark's baseline and the CLI's heartbeat keep working when the night's insides change."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PIPELINE = REPO / "skillopt_sleep" / "night" / "pipeline.py"


def _sources() -> Iterator[Path]:
    for top in ("skillopt_sleep", "bench"):
        for path in sorted((REPO / top).rglob("*.py")):
            if path != PIPELINE:
                yield path


def _offences(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(REPO)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            if any(b == "Night" or b.endswith(".Night") for b in bases):
                yield f"{where}:{node.lineno}: {node.name} subclasses Night"
        if isinstance(node, ast.Name | ast.Attribute | ast.arg | ast.keyword):
            name = getattr(node, "id", None) or getattr(node, "attr", None)
            name = name or getattr(node, "arg", None)
            if name == "make_night":
                yield f"{where}:{node.lineno}: make_night (pass stages= or watch=)"


def test_no_night_is_subclassed_and_no_night_factory_is_passed():
    found = [line for path in _sources() for line in _offences(path)]
    assert found == [], "\n".join(found)


SEAM_TYPES = ("Want", "Draw", "Drawer", "Proposer", "Guard", "Gate")


def _definitions(name: str) -> list[str]:
    found = []
    for path in sorted((REPO / "skillopt_sleep").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = (
                [t for t in node.targets if isinstance(t, ast.Name)]
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                else []
            )
            named = [t.id for t in targets if isinstance(t, ast.Name)]
            if isinstance(node, ast.ClassDef):
                named.append(node.name)
            if name in named:
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def test_the_rounds_seam_types_are_defined_once():
    twice = {name: where for name in SEAM_TYPES if len(where := _definitions(name)) != 1}
    assert twice == {}, twice


def test_a_night_is_built_from_its_plan_whose_fields_are_declared_once():
    """``Night`` takes the plan (and the files it read), so a plan field is never copied into a
    parameter list of its own."""
    import inspect

    from skillopt_sleep.night.pipeline import Night

    assert list(inspect.signature(Night.__init__).parameters) == ["self", "plan", "workspace"]


NIGHT_WRITES = (
    "save_night",
    "set_night_state",
    "add_rejected_edits",
    "update_edit_evidence",
    "save_waiting",
    "write_proposal",
)
RECORDER = REPO / "skillopt_sleep" / "night" / "recorder.py"


def test_a_nights_rows_and_proposal_are_written_from_its_recorder_alone():
    """A night (and ``train stage``) writes its rows and its proposal through ``Recorder``, so a
    night started any way leaves the same record; the morning's verbs (``review/``) change a
    night's state afterwards, and the store defines the writes."""
    found = []
    for path in sorted((REPO / "skillopt_sleep").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if path == RECORDER or rel.startswith(("skillopt_sleep/review/", "skillopt_sleep/store/")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
                if name in NIGHT_WRITES:
                    found.append(f"{rel}:{node.lineno}: {name}")
    assert found == [], "\n".join(found)
