"""``--night KEY=VALUE``: [night] settings for the product's gate in a benchmark, checked by the
settings model as a config file's would be."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from skillopt_sleep.settings import NightSettings


def add_night_option(parser: argparse.ArgumentParser, example: str = "harm_odds=8") -> None:
    parser.add_argument(
        "--night",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"a [night] setting of the product's gate (the edit mode), e.g. {example}; the "
        "baselines keep the defaults (repeatable)",
    )


def night_settings(pairs: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs as [night] settings (a value is read as JSON where it parses, else as
    text); ValueError, in one line naming the setting, for a wrong one."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or key not in NightSettings.model_fields:
            raise ValueError(f"--night {pair!r}: expected KEY=VALUE with a [night] setting as KEY")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    try:
        NightSettings(**out)
    except ValidationError as e:
        first = e.errors()[0]
        raise ValueError(f"--night {first['loc'][0]}: {first['msg']}") from None
    return out


def described(settings: Mapping[str, object]) -> str:
    """``harm_odds = 8, allocation = "lean"``: settings as a config file writes them."""
    return ", ".join(f"{k} = {json.dumps(v)}" for k, v in settings.items())


def parsed_night(parser: argparse.ArgumentParser, pairs: Sequence[str]) -> dict[str, Any]:
    """:func:`night_settings`, a wrong one ending the command as argparse ends it (status 2)."""
    try:
        return night_settings(pairs)
    except ValueError as e:
        parser.error(str(e))
