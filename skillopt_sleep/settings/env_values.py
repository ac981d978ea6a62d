"""An environment variable's text read as the value its setting takes.

Settings are validated strictly (a bool is not a number, a string is not a number), but an
environment variable is text by nature: ``SKILLOPT_SLEEP_NIGHT__K=2`` means the number 2. So the
text is converted here, by the type of the setting it names, before the strict validation; text
that is not a value of that type (``k=true``, ``max_cost_usd=five``) is left as it is, and the
validation refuses it naming the variable.
"""

from __future__ import annotations

import json
import types
from typing import Any, Union, get_args, get_origin

from pydantic import AliasChoices, BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from .sections import Settings

_SCALARS = (bool, int, float, str)


def env_value(path: list[str], raw: str) -> Any:
    """``raw``, the text of the variable for the setting at ``path`` (``["night", "k"]``), as
    that setting's value: a list or table from JSON, a number or a bool where the setting takes
    one and the text is one, else the text unchanged."""
    if raw[:1] in "[{":
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    kind = _type_at(Settings, path)
    if kind is None or kind is str:
        return raw
    try:
        value = TypeAdapter(kind).validate_python(raw)
    except ValidationError:
        return raw
    return value if isinstance(value, _SCALARS) else raw


def _type_at(kind: Any, path: list[str]) -> Any:
    """The type of the setting at ``path`` under ``kind``, or None where nothing is there."""
    if not path:
        return kind
    kind = _without_none(kind)
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        for name, field in kind.model_fields.items():
            if path[0] == name or path[0] in aliases(field):
                return _type_at(field.annotation, path[1:])
        return None
    if get_origin(kind) is dict:
        return _type_at(get_args(kind)[1], path[1:])
    return None


def _without_none(kind: Any) -> Any:
    """``float | None`` -> ``float``; any other type as it is."""
    if get_origin(kind) in (Union, types.UnionType):
        rest = [arg for arg in get_args(kind) if arg is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return kind


def aliases(field: FieldInfo) -> tuple[str, ...]:
    """The other names a setting is read under (``[train] num_epochs`` for ``epochs``)."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return tuple(a for a in alias.choices if isinstance(a, str))
    return (alias,) if isinstance(alias, str) else ()
