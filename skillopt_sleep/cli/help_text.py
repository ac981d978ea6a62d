"""Every command's `--help` has a description and an example: filled in here, once, for all
the command modules, so a new command without an example fails its test rather than ships."""

from __future__ import annotations

import argparse

# One example (or two) per command, as a user would type it.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "run": ("skillopt-sleep run --estimate", "skillopt-sleep run --backend anthropic"),
    "dry-run": ("skillopt-sleep dry-run --backend simulated",),
    "demo": ("skillopt-sleep demo --dir /tmp/sleep-demo",),
    "status": ("skillopt-sleep status", "skillopt-sleep status --all-projects --json"),
    "review": ("skillopt-sleep review", "skillopt-sleep review 20261124-031702 --color never"),
    "adopt": ("skillopt-sleep adopt",),
    "reject": ("skillopt-sleep reject",),
    "rollback": ("skillopt-sleep rollback", "skillopt-sleep rollback 20261124-0317 --force"),
    "tasks": ("skillopt-sleep tasks list",),
    "tasks add": ("skillopt-sleep tasks add --intent 'Run the tests' --check 'contains=passed'",),
    "tasks import": ("skillopt-sleep tasks import tasks.jsonl",),
    "tasks list": ("skillopt-sleep tasks list --all-projects",),
    "tasks show": ("skillopt-sleep tasks show t_1a2b",),
    "tasks rm": ("skillopt-sleep tasks rm t_1a2b",),
    "config": ("skillopt-sleep config show",),
    "config show": ("skillopt-sleep config show --backend openai",),
    "config path": ("skillopt-sleep config path",),
    "config init": ("skillopt-sleep config init",),
    "log": ("skillopt-sleep log < hook-payload.json",),
    "nudge": ("skillopt-sleep nudge", "skillopt-sleep nudge --for claude-code < hook-payload.json"),
    "harvest": ("skillopt-sleep harvest", "skillopt-sleep harvest --all-projects"),
    "doctor": ("skillopt-sleep doctor", "skillopt-sleep doctor --backend codex --json"),
    "schedule": ("skillopt-sleep schedule --time 03:17", "skillopt-sleep schedule --print"),
    "schedule status": ("skillopt-sleep schedule status --ack",),
    "schedule run": ("skillopt-sleep schedule run --once",),
    "schedule run-job": ("skillopt-sleep schedule run-job --project ~/work/app",),
    "unschedule": ("skillopt-sleep unschedule",),
    "train": (
        "skillopt-sleep train train.jsonl --skill SKILL.md --out /tmp/train-one --epochs 2 --steps-per-epoch 3",
        "skillopt-sleep train stage /tmp/train-one --project ~/work/app",
    ),
    "rules": ("skillopt-sleep rules", "skillopt-sleep rules --json"),
    "rules remove": ("skillopt-sleep rules remove r1a2b3c4d",),
    "report": ("skillopt-sleep report", "skillopt-sleep report --out /tmp/sleep-history.html"),
}


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[str, argparse.ArgumentParser, str]]:
    """Every (sub)command as ``(path, parser, one-line help)``, depth first."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help or "" for c in action._choices_actions}
            for name, sub in action.choices.items():
                key = (*path, name)
                found.append((" ".join(key), sub, helps.get(name, "")))
                found += commands(sub, key)
    return found


def finish(parser: argparse.ArgumentParser) -> None:
    """Give every subcommand a description (its one-line help, as a sentence, when it has none)
    and its examples."""
    for path, sub, help_line in commands(parser):
        if not sub.description and help_line:
            sub.description = help_line[0].upper() + help_line[1:] + "."
        examples = EXAMPLES.get(path, ())
        if examples:
            sub.epilog = "example:\n" + "\n".join(f"  {e}" for e in examples)
            sub.formatter_class = argparse.RawDescriptionHelpFormatter
