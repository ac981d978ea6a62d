"""Settings: defaults, user TOML, project TOML, environment and flags, validated once.

The sections of the settings, each field with its default and its description (the starter
config is generated from them). :mod:`.layers` reads, merges and validates them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .gate import NightGateSettings
from .training import TrainSettings

ENV_PREFIX = "SKILLOPT_SLEEP_"
PROJECT_FILE = ".skillopt-sleep.toml"
LayerName = Literal["default", "user", "project", "env", "flag"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class RoleSettings(_Section):
    """Which backend and model serve one role (target, optimizer or judge)."""

    backend: str | None = Field(
        default=None,
        description="simulated | anthropic | openai | claude-code | codex; default: the first usable",
    )
    model: str | None = Field(
        default=None, description="the model's name; default: the backend's own"
    )
    base_url: str | None = Field(
        default=None, description="an OpenAI-compatible server such as vLLM or Ollama, or a proxy"
    )
    api_key_env: str | None = Field(
        default=None, description="the environment variable that holds the key"
    )
    temperature: float | None = Field(
        default=None, ge=0, le=2, description="sampling temperature; default: the model's"
    )
    max_tokens: int = Field(
        default=1024, gt=0, le=200_000, description="longest answer a call may ask for, in tokens"
    )
    timeout_s: float = Field(
        default=120.0, gt=0, le=3600, description="seconds one call may take before it is retried"
    )
    max_retries: int = Field(
        default=4,
        ge=0,
        le=20,
        description="retries of a call that failed for a passing reason (429, 5xx, a timeout)",
    )
    prompt_cache: bool = Field(
        default=True,
        description="cache the skill and memory every replay shares (a read costs 0.1x input); "
        "off: every call pays the full input price",
    )


class RolesSettings(_Section):
    """The backend of each role.

    ``target`` replays the tasks, ``optimizer`` proposes edits, ``judge`` scores rubrics.
    """

    target: RoleSettings = Field(default_factory=RoleSettings, description="replays the tasks")
    optimizer: RoleSettings = Field(default_factory=RoleSettings, description="proposes the edits")
    judge: RoleSettings = Field(default_factory=RoleSettings, description="scores rubric checks")


class NightSettings(NightGateSettings):
    """How one night replays, reflects, edits and judges each edit; the gate's settings
    (:class:`.gate.NightGateSettings`) and its ``rigor`` preset are part of it."""

    k: int = Field(
        default=4, ge=1, le=64, description="rollouts per task, before and after an edit"
    )
    concurrency: int = Field(default=16, ge=1, le=256, description="model calls in flight at once")
    edit_budget: int = Field(
        default=3, ge=0, le=50, description="at most this many edits a night, see edit_schedule"
    )
    edit_budget_min: int = Field(default=1, ge=0, le=50, description="the edit budget it decays to")
    edit_schedule: Literal["constant", "linear", "cosine"] = Field(
        default="constant",
        description="constant | linear | cosine: decay from edit_budget to edit_budget_min",
    )
    schedule_horizon: int = Field(
        default=10, ge=1, le=1000, description="nights over which the edit budget decays"
    )
    steps: int = Field(default=2, ge=1, le=10, description="rounds of reflect -> test a night")
    prompts: str | None = Field(
        default=None,
        description="a directory of your own prompt files (NAME.txt, e.g. reflect_contrast.txt) "
        "that replace the shipped ones, for the night's reflection and train's analysts alike; "
        "a relative path is read from this file's folder",
    )
    holdout_fraction: float = Field(
        default=0.35,
        gt=0,
        lt=1,
        description="share of tasks never shown to the optimizer (fixed per task)",
    )
    max_tasks: int = Field(default=200, ge=1, description="tasks a night works on, at most")
    recall: int = Field(
        default=40, ge=0, description="older tasks recalled next to the new ones, at most"
    )
    reflect_tasks: int = Field(
        default=6, ge=1, le=100, description="cases the optimizer is shown a round"
    )
    seed: int = Field(
        default=0, description="the same seed, tasks, files and backend give the same night"
    )
    auto_adopt: bool = Field(
        default=False, description="adopt accepted proposals without review; rollback still works"
    )
    batch: bool = Field(
        default=False,
        description="the night's calls through the provider's batch API: half price, results within "
        "24 hours (usually minutes); off, scheduled nights too, so the proposal is ready by morning",
    )
    batch_poll_s: float = Field(
        default=30.0, gt=0, le=3600, description="seconds between two looks at a running batch"
    )
    replay: Literal["auto", "text", "agent"] = Field(
        default="auto",
        description="auto: tasks with action checks replayed by the real agent in a sandboxed copy "
        "of the project (needs bubblewrap), else as text; agent: every agent task so; text: never",
    )
    agent_timeout_s: float = Field(
        default=600.0, gt=0, le=7200, description="wall-time limit of one agent rollout"
    )
    agent_max_turns: int = Field(
        default=30, ge=1, le=500, description="turn limit of one agent rollout (claude --max-turns)"
    )


class Price(_Section):
    """USD per million tokens. ``cache_write`` / ``cache_read``: input written to / read from the
    prompt cache (unset: Anthropic's 1.25x / 0.1x of input for Claude models, OpenAI's cached
    price for its models, else the input price)."""

    input: float = Field(ge=0, description="USD per million input tokens")
    output: float = Field(ge=0, description="USD per million output tokens")
    cache_write: float | None = Field(
        default=None, ge=0, description="USD per million tokens written to the cache"
    )
    cache_read: float | None = Field(
        default=None, ge=0, description="USD per million tokens read from the cache"
    )
    cache_write_1h: float | None = Field(
        default=None,
        ge=0,
        description="USD per million tokens written to the one-hour cache (unset: 2x input for Claude)",
    )


class BudgetSettings(_Section):
    """Per-night spending limits, checked before every model call. None: no limit."""

    max_calls: int | None = Field(default=2000, ge=1, description="model calls a night, at most")
    # a 40-task night with a 5,000-token skill and memory sends about 5M tokens, most of them
    # cached; money is what max_cost_usd bounds, tokens only a runaway night
    max_tokens: int | None = Field(
        default=15_000_000, ge=1, description="tokens a night, at most (a runaway's bound)"
    )
    max_cost_usd: float | None = Field(
        default=5.0, ge=0, description="a night stops cleanly before it would spend more"
    )
    prices: dict[str, Price] = Field(
        default_factory=dict,
        description="USD per million tokens, by model (cache_write / cache_read: cached input)",
    )


class FilesSettings(_Section):
    """Which files a night may change, relative to the project root."""

    skill: str | None = Field(
        default=None,
        description="the skill file, relative to the project; default: its single skill, else "
        ".claude/skills/project/SKILL.md",
    )
    memory: list[str] = Field(
        default_factory=lambda: ["CLAUDE.md", "AGENTS.md"],
        description="the memory files a rule is written into, once each",
    )
    max_bytes: dict[str, int] = Field(
        description="size caps; Codex cuts AGENTS.md at 32 KiB",
        default_factory=lambda: {
            "AGENTS.md": 32 * 1024,
            "CLAUDE.md": 40 * 1024,
            "SKILL.md": 24 * 1024,
        },
    )
    max_rules: int = Field(
        default=30, ge=1, description="learned rules a file's managed block may hold"
    )
    agents: list[str] = Field(
        default_factory=list,
        description="the coding agents that read this project's files (claude-code, codex, "
        "copilot, opencode, pi, gemini, qwen), so a rule reaches each once; default: the agents "
        "its logged tasks came from",
    )


class HarvestSettings(_Section):
    """Where the day's tasks come from."""

    lookback_days: int = Field(
        default=7, ge=1, le=3650, description="sessions older than this are not read"
    )
    all_projects: bool = Field(
        default=False, description="harvest every project, not only the current one"
    )
    sources: list[str] | None = Field(
        default=None,
        description="the agents whose sessions are read (default: every agent skillopt-sleep "
        "knows; `harvest --help` lists them)",
    )
    claude_config_dir: str | None = Field(
        default=None, description="default: $CLAUDE_CONFIG_DIR, else ~/.claude"
    )
    codex_home: str | None = Field(default=None, description="default: $CODEX_HOME, else ~/.codex")
    llm_checks: int = Field(
        default=20,
        ge=0,
        le=1000,
        description="model calls a harvest may make to mine checks from corrections the "
        "heuristics could not read (only when roles.optimizer.backend is set); 0: heuristics only",
    )
    llm_classify: bool = Field(
        default=False,
        description="ask the judge backend what a user turn is when the rules cannot tell; off: "
        "unsure turns are kept and marked unsure",
    )
    llm_classify_calls: int = Field(
        default=50, ge=0, le=5000, description="at most this many of those calls a run"
    )


class ScheduleSettings(_Section):
    """When the nightly run starts, and how."""

    cron: str = Field(
        default="17 3 * * *", description="when the nightly run starts (cron syntax, local time)"
    )
    method: Literal["auto", "crontab", "systemd", "launchd", "schtasks", "loop"] = Field(
        default="auto", description="the scheduler: auto picks the system's own"
    )
    projects: list[str] = Field(
        default_factory=list, description="the projects the nightly run works on"
    )


class Settings(_Section):
    """All settings. Build with :func:`load_settings`; ``Settings()`` gives the defaults."""

    night: NightSettings = Field(default_factory=NightSettings, description="one night")
    roles: RolesSettings = Field(default_factory=RolesSettings, description="the backends")
    budget: BudgetSettings = Field(
        default_factory=BudgetSettings, description="a night's spending limits"
    )
    files: FilesSettings = Field(
        default_factory=FilesSettings, description="the files a night may change"
    )
    harvest: HarvestSettings = Field(default_factory=HarvestSettings, description="the day's tasks")
    schedule: ScheduleSettings = Field(
        default_factory=ScheduleSettings, description="the nightly run"
    )
    train: TrainSettings = Field(
        default_factory=TrainSettings, description="a training run (`skillopt-sleep train`)"
    )
