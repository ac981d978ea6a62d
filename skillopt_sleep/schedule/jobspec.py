"""What the OS scheduler runs each night, fixed at the moment the user types ``schedule``.

The job carries absolute paths (the interpreter, the package when it runs from a source
checkout, the config file it must find) and the settings of that moment: the command-line flags,
the ``SKILLOPT_SLEEP_*`` environment and an explicit ``PATH`` holding the agent CLIs, so cron's
bare environment changes nothing. Secrets never go into it: they are split out for the 0600
env file the job reads.
"""

from __future__ import annotations

import hashlib
import sys
import sysconfig
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from ..errors import ScheduleError
from ..paths import HOME_ENV, Paths
from ..redact import find_secrets
from ..settings import ENV_PREFIX, Settings

# Variables that move where the job finds its files or the agents' files: carried as they are.
CARRIED_ENV = (
    HOME_ENV,
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
)
# Secrets each backend may need; they go to the env file, never into the job itself.
SECRET_ENV: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY",),
    "claude-code": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
    "codex": ("OPENAI_API_KEY", "CODEX_API_KEY"),
}
# Programs whose directories the job's PATH must hold (codex is a node script).
TOOLS = ("claude", "codex", "node")
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
PYTHON_ENV = "SKILLOPT_SLEEP_PYTHON"  # an interpreter to use instead of the running one


@dataclass(frozen=True)
class JobSpec:
    """The nightly command: ``python`` + ``args``, run with ``env`` (no secrets) in ``workdir``.

    ``name`` is the instance name used for crontab markers, unit files, plist labels and tasks;
    ``output_log`` receives whatever the job prints before its own log is open.
    """

    name: str
    python: str
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    workdir: str
    output_log: str

    @property
    def argv(self) -> list[str]:
        return [self.python, *self.args]

    @property
    def env_dict(self) -> dict[str, str]:
        return dict(self.env)


def instance_name(env: Mapping[str, str], paths: Paths) -> str:
    """``skillopt-sleep``; with ``SKILLOPT_SLEEP_HOME`` set, suffixed so homes never collide."""
    if not env.get(HOME_ENV):
        return "skillopt-sleep"
    digest = hashlib.sha256(str(paths.state_dir).encode("utf-8")).hexdigest()[:8]
    return f"skillopt-sleep-{digest}"


def package_root() -> Path:
    """The directory holding the ``skillopt_sleep`` package."""
    return Path(__file__).resolve().parent.parent.parent


def needs_pythonpath(root: Path) -> bool:
    """True when the package is not importable from the interpreter's own site directories."""
    sites = {sysconfig.get_paths().get(k) for k in ("purelib", "platlib")}
    return str(root) not in {str(Path(s).resolve()) for s in sites if s}


def resolve_python(env: Mapping[str, str]) -> str:
    return env.get(PYTHON_ENV) or sys.executable


def job_path(python: str, env: Mapping[str, str], which: Callable[[str], str | None]) -> str:
    """An explicit PATH: the interpreter's and the agent CLIs' directories, then the system's."""
    sep = ";" if "\\" in python else ":"
    dirs = [str(PurePath(python).parent)]
    for tool in TOOLS:
        found = which(tool)
        if found:
            dirs.append(str(PurePath(found).parent))
    if sep == ";":
        dirs += [d for d in env.get("PATH", "").split(sep) if d]
    else:
        dirs += list(SYSTEM_PATH)
    return sep.join(dict.fromkeys(dirs))


def secret_names(settings_list: Sequence[Settings], backends: Sequence[str]) -> list[str]:
    """Env variables holding keys the resolved backends may use."""
    names: list[str] = []
    for backend in backends:
        names += SECRET_ENV.get(backend, ())
    for settings in settings_list:
        for role in (settings.roles.target, settings.roles.optimizer, settings.roles.judge):
            if role.api_key_env:
                names.append(role.api_key_env)
    return list(dict.fromkeys(names))


def build_job(
    *,
    name: str,
    projects: Sequence[Path],
    flags: Sequence[str],
    env: Mapping[str, str],
    paths: Paths,
    secrets: Sequence[str],
    which: Callable[[str], str | None],
    python: str,
    root: Path | None,
) -> tuple[JobSpec, dict[str, str]]:
    """The job, and the secrets (name -> value) it needs in the env file.

    ``root`` is the source checkout to put on PYTHONPATH, or None for an installed package.
    """
    args = ["-m", "skillopt_sleep", "schedule", "run-job"]
    for project in projects:
        args += ["--project", str(project)]
    args += [*flags, "--expect-config", str(paths.config_file)]
    for arg in args:
        if find_secrets(arg):
            raise ScheduleError(
                "a scheduled command line would contain a secret",
                hint="pass keys through environment variables, not flags",
            )
    job_env = {"PATH": job_path(python, env, which)}
    if root is not None:
        job_env["PYTHONPATH"] = str(root)
    carried = [k for k in env if k in CARRIED_ENV or (k.startswith(ENV_PREFIX) and "__" in k)]
    to_file = {k: env[k] for k in secrets if env.get(k)}
    for key in sorted(carried):
        if key in to_file:
            continue
        if find_secrets(env[key]):
            to_file[key] = env[key]
        else:
            job_env[key] = env[key]
    job = JobSpec(
        name=name,
        python=python,
        args=tuple(args),
        env=tuple(sorted(job_env.items())),
        workdir=env.get("HOME") or env.get("USERPROFILE") or str(paths.state_dir),
        output_log=str(paths.log_dir / "job-output.log"),
    )
    return job, to_file
