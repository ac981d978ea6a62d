"""Settings: defaults, user TOML, project TOML, environment and flags, validated once.

Layers, lowest first: ``default`` < ``user`` (``<config_dir>/config.toml``) < ``project``
(``<project>/.skillopt-sleep.toml``) < ``env`` (``SKILLOPT_SLEEP_<SECTION>__<KEY>``, e.g.
``SKILLOPT_SLEEP_NIGHT__K=2``) < ``flag``. :func:`load_settings` returns the validated
:class:`Settings` and, for ``config show``, where each value came from.
"""

from .layers import (
    RETIRED,
    Layer,
    LoadedSettings,
    env_layer,
    flag_layer,
    load_settings,
    load_what_loads,
    read_toml,
    settings_layers,
)
from .sections import (
    ENV_PREFIX,
    PROJECT_FILE,
    BudgetSettings,
    FilesSettings,
    HarvestSettings,
    LayerName,
    NightSettings,
    Price,
    RoleSettings,
    RolesSettings,
    ScheduleSettings,
    Settings,
)

__all__ = [
    "ENV_PREFIX",
    "PROJECT_FILE",
    "RETIRED",
    "BudgetSettings",
    "FilesSettings",
    "HarvestSettings",
    "Layer",
    "LayerName",
    "LoadedSettings",
    "NightSettings",
    "Price",
    "RoleSettings",
    "RolesSettings",
    "ScheduleSettings",
    "Settings",
    "env_layer",
    "flag_layer",
    "load_settings",
    "load_what_loads",
    "read_toml",
    "settings_layers",
]
