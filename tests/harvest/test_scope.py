"""The scope a correction sets, on its own: the corrected command kept to it, and a check
limited to the path the user put out of bounds rather than dropped or left contradicting."""

from __future__ import annotations

from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.examples import hold, user_example
from skillopt_sleep.harvest.shell_effects import shell_effects
from skillopt_sleep.models import Action, Check


def _acts(command: str) -> list[Action]:
    return [Action(kind="command", command=command)] + [
        Action(kind=k, path=p) for k, p in shell_effects(command)
    ]


def test_the_example_of_a_scope_is_the_corrected_command_kept_to_it():
    corrected = _acts("rg -n TODO vendor/ . 2>&1 | head")
    example = user_example("Nothing in vendor/ please, only lib/ and bin/.", corrected)
    assert example is not None and example.commands == ("rg -n TODO lib bin | head",)


def test_a_command_wholly_out_of_scope_is_no_example():
    corrected = _acts("rm -rf data/raw")
    example = user_example("Never delete anything under data/raw/.", corrected)
    assert example is None or not example.commands


def test_a_folder_left_alone_is_limited_to_the_part_the_user_protects():
    corrected = _acts("rm -rf data/cache data/raw")
    example = user_example("Never delete inside data/raw/; data/cache/ is fine.", corrected)
    held = hold([Check(kind="untouched", value="data")], example, corrected)
    assert [plain(c) for c in held] == ["leaves data/raw alone"]


def test_a_tool_the_user_keeps_out_of_a_folder_is_never_run_there_only():
    corrected = _acts("find node_modules/ src/ -name '*.ts'")
    example = user_example("Don't look inside node_modules; just src.", corrected)
    never = Check(kind="never_ran", value=r"(?<![\w-])find(?![\w-])", case_sensitive=False)
    held = hold([never], example, corrected)
    assert [plain(c) for c in held] == ["never runs find ... node_modules"]
