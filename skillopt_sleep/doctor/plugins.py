"""Doctor checks for the agent shells: which agents have the plugin or skill, at which version.

The plugin and the package must report the same version: a plugin older than the engine may
call commands the way an older engine wanted them, a newer one may ask for what the engine
lacks. A mismatch is a warning that names the command that brings them back in line.

The agents themselves are asked whether they load the plugin (``claude plugin list --json``,
``codex debug prompt-input``, which calls no model): files on disk can say "installed" while the
agent fails to load it (a directory marketplace whose directory is gone).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..errors import SleepError
from ..schedule.runner import Runner, SubprocessRunner
from . import DoctorInput, Finding

PLUGIN = "skillopt-sleep"
MARKETPLACE = "skillopt-sleep"
INSTALL_HINT = "sh install/install.sh from a skillopt-sleep checkout"
# A skill listed to the model: "- <name>: <description> (file: ...)".
_SKILL_LINE = re.compile(r"^- ([\w.:-]+): ", re.MULTILINE)


@dataclass(frozen=True)
class InstalledCopy:
    """One installed copy of a shell: where it is and the version it reports."""

    agent: str
    where: Path
    version: str | None
    enabled: bool = True


def checks(inp: DoctorInput) -> list[Finding]:
    home = _home(inp.env)
    if home is None:
        return [Finding("plugins", "skip", "no HOME in the environment: cannot look for agents")]
    out = [_claude_finding(inp, home)]
    out.append(_codex_finding(inp, home))
    return out


def _home(env: Mapping[str, str]) -> Path | None:
    raw = env.get("HOME") or env.get("USERPROFILE")
    return Path(raw) if raw else None


# --- Claude Code ----------------------------------------------------------------------------


def claude_config_dir(env: Mapping[str, str], home: Path) -> Path:
    return Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"


def claude_plugin(config_dir: Path) -> InstalledCopy | None:
    """The plugin as ``claude plugin install`` recorded it, or None when it is not installed."""
    installed = _read_json(config_dir / "plugins" / "installed_plugins.json")
    plugins = installed.get("plugins") if isinstance(installed, dict) else None
    if not isinstance(plugins, dict):
        return None
    for key, entries in plugins.items():
        if key.split("@", 1)[0] != PLUGIN or not isinstance(entries, list) or not entries:
            continue
        entry = entries[0] if isinstance(entries[0], dict) else {}
        where = Path(str(entry.get("installPath", config_dir / "plugins")))
        manifest = _read_json(where / ".claude-plugin" / "plugin.json")
        version = manifest.get("version") if isinstance(manifest, dict) else None
        version = version or entry.get("version")
        return InstalledCopy(
            "claude-code",
            where,
            str(version) if version else None,
            _claude_enabled(config_dir, key),
        )
    return None


def _claude_enabled(config_dir: Path, key: str) -> bool:
    settings = _read_json(config_dir / "settings.json")
    enabled = settings.get("enabledPlugins") if isinstance(settings, dict) else None
    return not isinstance(enabled, dict) or enabled.get(key, True) is not False


def _claude_finding(inp: DoctorInput, home: Path) -> Finding:
    config_dir = claude_config_dir(inp.env, home)
    copy = claude_plugin(config_dir)
    if copy is None:
        if inp.which("claude") is None and not config_dir.exists():
            return Finding("plugin: claude-code", "skip", "Claude Code not found")
        return Finding(
            "plugin: claude-code",
            "warn",
            "Claude Code is here but the skillopt-sleep plugin is not installed",
            f"run {INSTALL_HINT}, or `claude plugin marketplace add <checkout>` then "
            f"`claude plugin install {PLUGIN}@{MARKETPLACE}`",
            {"agent": "claude-code", "installed": "no"},
        )
    if not copy.enabled:
        return Finding(
            "plugin: claude-code",
            "warn",
            f"installed at {copy.where} but disabled",
            f"run `claude plugin enable {PLUGIN}@{MARKETPLACE}`",
            _data(copy),
        )
    errors = (
        claude_load_errors(SubprocessRunner(inp.env), f"{PLUGIN}@{MARKETPLACE}")
        if inp.which("claude")
        else None
    )
    if errors:
        return Finding(
            "plugin: claude-code",
            "fail",
            f"installed at {copy.where} but Claude Code cannot load it: {errors[0]}",
            f"run {INSTALL_HINT}: it installs the plugin from a copy it owns",
            _data(copy),
        )
    return _version_finding("plugin: claude-code", copy, claude_update_fix())


def claude_update_fix() -> str:
    return (
        f"run `claude plugin marketplace update {MARKETPLACE}` then "
        f"`claude plugin update {PLUGIN}@{MARKETPLACE}` (or rerun the installer)"
    )


# --- Codex -----------------------------------------------------------------------------------


def codex_skills(env: Mapping[str, str], home: Path, project: Path) -> list[InstalledCopy]:
    """Every copy of the skill Codex would load: user and repo skill roots, and plugin caches."""
    codex_home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
    roots = [home / ".agents" / "skills", codex_home / "skills"]
    roots += [d / ".agents" / "skills" for d in _project_and_parents(project)]
    found: list[InstalledCopy] = []
    seen: set[Path] = set()
    for root in roots:
        skill = root / PLUGIN / "SKILL.md"
        if skill.is_file() and skill.resolve() not in seen:
            seen.add(skill.resolve())
            found.append(InstalledCopy("codex", skill, skill_version(skill.read_text("utf-8"))))
    cache = codex_home / "plugins" / "cache"
    for manifest in sorted(cache.glob(f"*/{PLUGIN}/*/.codex-plugin/plugin.json")):
        data = _read_json(manifest)
        version = data.get("version") if isinstance(data, dict) else None
        found.append(
            InstalledCopy("codex", manifest.parent.parent, str(version) if version else None)
        )
    return found


def _project_and_parents(project: Path) -> Iterator[Path]:
    """The project and its parents up to the repository root (Codex reads skills there too)."""
    current = project
    for _ in range(64):  # bounded: a path has far fewer parts
        yield current
        if (current / ".git").exists() or current.parent == current:
            return
        current = current.parent


_FRONTMATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
_METADATA_VERSION = re.compile(
    r"^metadata:\s*\n(?:[ \t]+.*\n)*?[ \t]+version:\s*[\"']?([^\"'\s]+)", re.MULTILINE
)


def skill_version(text: str) -> str | None:
    """``metadata.version`` from a SKILL.md frontmatter, or None."""
    front = _FRONTMATTER.match(text)
    if not front:
        return None
    found = _METADATA_VERSION.search(front.group(1) + "\n")
    return found.group(1) if found else None


def _codex_finding(inp: DoctorInput, home: Path) -> Finding:
    copies = codex_skills(inp.env, home, inp.project)
    if not copies:
        if inp.which("codex") is None and not (home / ".codex").exists():
            return Finding("skill: codex", "skip", "Codex not found")
        return Finding(
            "skill: codex",
            "warn",
            "Codex is here but the skillopt-sleep skill is not installed",
            f"run {INSTALL_HINT}, or copy plugins/codex/skills/{PLUGIN} into ~/.agents/skills/",
            {"agent": "codex", "installed": "no"},
        )
    stale = [c for c in copies if c.version != __version__]
    if stale:
        return _version_finding("skill: codex", stale[0], _codex_fix(stale[0]))
    where = ", ".join(_codex_place(c) for c in copies)
    # Ask Codex only where it has run before: the first run of `codex` writes its own files.
    listed = (
        codex_skill_names(SubprocessRunner(inp.env), inp.project)
        if inp.which("codex") and (home / ".codex").is_dir()
        else None
    )
    if listed is not None and not {PLUGIN, f"{PLUGIN}:{PLUGIN}"} & set(listed):
        return Finding(
            "skill: codex",
            "fail",
            f"found at {where}, but Codex does not list it",
            f"run {INSTALL_HINT}, and check that the skill's SKILL.md is readable",
            _data(copies[0]),
        )
    names = (
        ""
        if listed is None
        else " (Codex lists it as "
        + ", ".join(f"${n}" for n in (PLUGIN, f"{PLUGIN}:{PLUGIN}") if n in listed)
        + ")"
    )
    return Finding(
        "skill: codex", "ok", f"version {__version__} at {where}{names}", data=_data(copies[0])
    )


def _codex_place(copy: InstalledCopy) -> str:
    # Codex namespaces a plugin's skills: only a skill-root copy answers to `$skillopt-sleep`.
    if copy.where.name == "SKILL.md":
        return str(copy.where)
    return f"{copy.where} (as ${PLUGIN}:{PLUGIN})"


def _codex_fix(copy: InstalledCopy) -> str:
    if copy.where.name == "SKILL.md":
        return (
            f"rerun the installer, or copy plugins/codex/skills/{PLUGIN} of skillopt-sleep "
            f"{__version__} over {copy.where.parent}"
        )
    return f"run `codex plugin marketplace upgrade {MARKETPLACE}`"


# --- shared ----------------------------------------------------------------------------------


def _version_finding(name: str, copy: InstalledCopy, update_fix: str) -> Finding:
    if copy.version == __version__:
        return Finding(name, "ok", f"version {copy.version} at {copy.where}", data=_data(copy))
    shown = copy.version or "unknown"
    if copy.version and _version_key(copy.version) > _version_key(__version__):
        fix = (
            f"upgrade the engine to {copy.version}: run install/install.sh from a checkout "
            f"of skillopt-sleep {copy.version}"
        )
    else:
        fix = update_fix
    detail = f"version {shown} at {copy.where}, but the engine is {__version__}"
    return Finding(name, "warn", detail, fix, _data(copy))


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:4])


def _data(copy: InstalledCopy) -> dict[str, str]:
    return {
        "agent": copy.agent,
        "installed": "yes",
        "path": str(copy.where),
        "version": copy.version or "",
    }


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def claude_load_errors(runner: Runner, plugin_id: str) -> list[str] | None:
    """What `claude plugin list --json` reports as errors for ``plugin_id`` ([] when it loads);
    None when Claude Code could not be asked or does not list it."""
    try:
        result = runner.run(["claude", "plugin", "list", "--json"], input="")
    except SleepError:
        return None
    if result.code != 0:
        return None
    try:
        listed = json.loads(result.out)
    except ValueError:
        return None
    for entry in listed if isinstance(listed, list) else []:
        if isinstance(entry, dict) and entry.get("id") == plugin_id:
            errors = entry.get("errors") or []
            return [str(e) for e in errors] if isinstance(errors, list) else [str(errors)]
    return None


def codex_skill_names(runner: Runner, project: Path) -> list[str] | None:
    """The skills Codex lists to its model in ``project`` (`codex debug prompt-input`, which
    calls no model), or None when Codex could not be asked."""
    try:
        result = runner.run(["codex", "-C", str(project), "debug", "prompt-input"], input="")
    except SleepError:
        return None
    if result.code != 0 or "<skills_instructions>" not in result.out:
        return None
    try:
        items = json.loads(result.out)
    except ValueError:
        return None
    listing = next((t for t in _strings(items) if "<skills_instructions>" in t), "")
    return _SKILL_LINE.findall(listing)


def _strings(value: object) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []
