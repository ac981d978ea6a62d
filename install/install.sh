#!/bin/sh
# Install skillopt-sleep from this checkout: the engine (built into a wheel, installed with pipx,
# else uv, else into a private virtual environment), the Claude Code plugin and the Codex skill
# for the agents found here (copies the installation owns), and, if asked, the nightly schedule.
# Every change is written to a manifest, so `--uninstall` removes exactly those.
#
#   sh install/install.sh [--dry-run] [--uninstall] [--schedule | --no-schedule] [--yes]
#                         [--with pipx|uv|venv|pip] [--claude | --no-claude]
#                         [--codex | --no-codex] [--package SPEC]
set -u

PROG=install.sh
SRC=$(cd "$(dirname "$0")/.." && pwd -P)
NAME=skillopt-sleep
MARKET=skillopt-sleep
PLUGIN_ID="$NAME@$MARKET"
STATE_DIR="${XDG_STATE_HOME:-$HOME/.local/state}/$NAME"
MANIFEST="$STATE_DIR/install-manifest.txt"
# What the installation owns; the plugin launcher looks for the engine at exactly this place.
OWN_DIR="${XDG_DATA_HOME:-$HOME/.local/share}/$NAME"
ENGINE_VENV="$OWN_DIR/engine"
WHEEL_DIR="$OWN_DIR/wheels"
CLAUDE_MARKET_DIR="$OWN_DIR/claude-marketplace"
USER_BIN="$HOME/.local/bin"
CLAUDE_DIR="${CLAUDE_CONFIG_DIR:-$HOME/.claude}"
SKILLS_DIR="$HOME/.agents/skills"
TAB=$(printf '\t')
# pip must leave no self-check or cache files behind: uninstall restores the tree exactly.
PIP_DISABLE_PIP_VERSION_CHECK=1
PIP_NO_CACHE_DIR=1
UV_NO_CACHE=1
export PIP_DISABLE_PIP_VERSION_CHECK PIP_NO_CACHE_DIR UV_NO_CACHE

DRY=0 UNINSTALL=0 SCHEDULE=ask YES=0 TOOL= WANT_CLAUDE=auto WANT_CODEX=auto PACKAGE=
NEW_MANIFEST=

say() { printf '%s\n' "$*"; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

usage() {
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
}

while [ $# -gt 0 ]; do
    case $1 in
        --dry-run) DRY=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --schedule) SCHEDULE=yes ;;
        --no-schedule) SCHEDULE=no ;;
        --yes | -y) YES=1 ;;
        --with) [ $# -ge 2 ] || die "--with needs pipx, uv, venv or pip"; TOOL=$2; shift ;;
        --with=*) TOOL=${1#--with=} ;;
        --claude) WANT_CLAUDE=yes ;;
        --no-claude) WANT_CLAUDE=no ;;
        --codex) WANT_CODEX=yes ;;
        --no-codex) WANT_CODEX=no ;;
        --package)
            [ $# -ge 2 ] || die "--package needs a path or a requirement"
            PACKAGE=$2
            shift
            ;;
        -h | --help) usage ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
    shift
done
case $TOOL in "" | pipx | uv | venv | pip) ;; *) die "--with takes pipx, uv, venv or pip, not '$TOOL'" ;; esac
# Uninstalling needs only the manifest: the checkout may be long gone.
if [ "$UNINSTALL" = 0 ]; then
    [ -f "$SRC/pyproject.toml" ] && [ -d "$SRC/skillopt_sleep" ] ||
        die "run this script from a skillopt-sleep checkout ($SRC has no pyproject.toml)"
fi
VERSION=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$SRC/skillopt_sleep/__init__.py" 2>/dev/null)

# --- helpers ---------------------------------------------------------------------------------

# run CMD...: runs it, or only prints it under --dry-run.
run() {
    if [ "$DRY" = 1 ]; then
        say "would run: $*"
        return 0
    fi
    say "+ $*"
    "$@"
}

# record KIND VALUE [EXTRA]: one line of the manifest (written as each step succeeds).
record() {
    [ "$DRY" = 1 ] && return 0
    printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$MANIFEST"
}

recorded() {  # recorded KIND VALUE: is this line in the manifest?
    [ -f "$MANIFEST" ] && grep -q "^$1$TAB$2$TAB" "$MANIFEST"
}

# missing_dirs DIR: DIR and its missing parents, outermost first, one per line.
missing_dirs() {
    d=$1
    out=
    while [ ! -d "$d" ]; do
        out="$d
$out"
        d=$(dirname "$d")
    done
    printf '%s' "$out"
}

# make_dirs DIR: mkdir -p that records every directory it creates.
make_dirs() {
    while read -r d; do
        [ -n "$d" ] || continue
        if [ "$DRY" = 1 ]; then
            say "would create: $d"
            continue
        fi
        mkdir "$d" || die "cannot create $d"
        if [ -f "$MANIFEST" ]; then record dir "$d"; else NEW_MANIFEST="$NEW_MANIFEST$d$TAB"; fi
    done <<EOF
$(missing_dirs "$1")
EOF
}

# expect_dirs DIR: record the directories another tool (pip) is about to create.
expect_dirs() {
    while read -r d; do
        if [ -n "$d" ] && ! recorded dir "$d"; then record dir "$d"; fi
    done <<EOF
$(missing_dirs "$1")
EOF
}

open_manifest() {
    make_dirs "$STATE_DIR"
    [ "$DRY" = 1 ] && return 0
    if [ ! -f "$MANIFEST" ]; then
        : >"$MANIFEST"
        old_ifs=$IFS
        IFS=$TAB
        for d in $NEW_MANIFEST; do record dir "$d"; done
        IFS=$old_ifs
    fi
}

tree_sum() {  # tree_sum DIR: one checksum over every file's path and content
    (cd "$1" && find . -type f | LC_ALL=C sort | while read -r f; do
        printf '%s\n' "$f"
        cat "$f"
    done) | cksum | cut -d' ' -f1
}

pick_python() {  # the first Python 3.10 or newer on PATH
    for p in python3 python; do
        if command -v "$p" >/dev/null 2>&1 &&
                "$p" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
            command -v "$p"
            return 0
        fi
    done
    return 1
}

# --- the engine ------------------------------------------------------------------------------

venv_python() { say "$ENGINE_VENV/bin/python"; }

installed_version() {  # installed_version TOOL: the version that tool has installed, or nothing
    case $1 in
        pipx) pipx list --short 2>/dev/null | sed -n "s/^$NAME \([^ ]*\).*/\1/p" ;;
        uv) uv tool list 2>/dev/null | sed -n "s/^$NAME v\([^ ]*\).*/\1/p" ;;
        venv)
            [ -x "$(venv_python)" ] &&
                "$(venv_python)" -c 'import skillopt_sleep as s; print(s.__version__)' 2>/dev/null
            ;;
        # Only the user site: a system or editable install elsewhere is not ours to manage.
        pip) "$PY" -m pip list --user --format=freeze 2>/dev/null | sed -n "s/^$NAME==//p" ;;
    esac
}

choose_tool() {
    if [ -n "$TOOL" ]; then say "$TOOL"; return; fi
    if command -v pipx >/dev/null 2>&1; then say pipx
    elif command -v uv >/dev/null 2>&1; then say uv
    else say venv
    fi
}

in_venv() {  # is PY inside a virtual environment (where `pip --user` cannot install)?
    "$PY" -c 'import sys; sys.exit(sys.prefix == getattr(sys, "base_prefix", sys.prefix))'
}

externally_managed() {  # does PY refuse pip installs (PEP 668: Debian, Ubuntu, Homebrew)?
    [ -z "${PIP_BREAK_SYSTEM_PACKAGES:-}" ] && "$PY" -c '
import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'
}

# A copy of the package sources outside the checkout, so a build never leaves build/ there
# nor picks up stale files from an old one.
stage_source() {
    stage=$(mktemp -d "${TMPDIR:-/tmp}/skillopt-sleep-src.XXXXXX") || die "cannot make a temp dir"
    cp "$SRC/pyproject.toml" "$SRC/README.md" "$stage/" &&
        cp -R "$SRC/skillopt_sleep" "$stage/" &&
        find "$stage" -name __pycache__ -type d -prune -exec rm -rf {} + ||
        die "cannot copy the sources to $stage"
    say "$stage"
}

# pip_for_build: a pip that can build the wheel: PY's own, else a throwaway environment's.
build_wheel() {  # build_wheel: builds the wheel into WHEEL_DIR and prints its path
    stage=$(stage_source)
    out=$(mktemp -d "${TMPDIR:-/tmp}/skillopt-sleep-wheel.XXXXXX") || die "cannot make a temp dir"
    if "$PY" -m pip --version >/dev/null 2>&1; then
        builder=$PY
    else
        "$PY" -m venv "$out/build-env" >/dev/null 2>&1 ||
            die "$PY has neither pip nor venv; install python3-venv (Debian/Ubuntu) or pipx"
        builder="$out/build-env/bin/python"
    fi
    "$builder" -m pip wheel -q --no-deps -w "$out" "$stage" >&2 ||
        { rm -rf "$stage" "$out"; die "building the wheel failed (see above)"; }
    rm -rf "$stage"
    wheel=$(ls "$out"/*.whl 2>/dev/null | head -n 1)
    [ -n "$wheel" ] || die "the build made no wheel"
    make_dirs "$WHEEL_DIR" >&2
    # Kept: pipx and uv reinstall from it on `pipx upgrade` / `uv tool upgrade`.
    dest="$WHEEL_DIR/$(basename "$wheel")"
    [ -e "$dest" ] || record file "$dest"
    mv "$wheel" "$dest" || die "cannot move the wheel to $WHEEL_DIR"
    rm -rf "$out"
    say "$dest"
}

# pip_user_packages: the distributions in PY's user site, one name a line, sorted.
pip_user_packages() {
    "$PY" -m pip list --user --format=freeze 2>/dev/null | sed 's/==.*//' | LC_ALL=C sort
}

install_with_pip() {  # install_with_pip SPEC: --user, recording every distribution it adds
    if in_venv; then
        die "--with pip installs into the user site, which a virtual environment hides;" \
            "leave out --with pip (the default installs into a private environment)"
    fi
    if externally_managed; then
        die "$PY is managed by the system (PEP 668) and refuses pip installs; leave out" \
            "--with pip (the default installs into a private environment)"
    fi
    base=$("$PY" -m site --user-base) || die "$PY cannot report its user base"
    site=$("$PY" -m site --user-site)
    expect_dirs "$base/bin"
    expect_dirs "$site"
    before=$(pip_user_packages)
    run "$PY" -m pip install -q --user --no-warn-script-location "$1" || return 1
    # Every distribution this install added (the package and its dependencies), so that
    # --uninstall removes them all and leaves the user site as it was.
    pip_user_packages | while read -r dist; do
        printf '%s\n' "$before" | grep -qx "$dist" || record pip-dist "$dist" "$PY"
    done
}

install_with_venv() {  # install_with_venv SPEC: a private environment only this engine uses
    if [ ! -x "$(venv_python)" ]; then
        make_dirs "$OWN_DIR"
        run "$PY" -m venv "$ENGINE_VENV" ||
            die "$PY cannot make a virtual environment; install python3-venv (Debian/Ubuntu)" \
                "or pipx, then run this again"
    fi
    run "$(venv_python)" -m pip install -q --force-reinstall --no-deps "$1" &&
        run "$(venv_python)" -m pip install -q "$1" || return 1
    link_engine "$ENGINE_VENV/bin/$NAME"
}

link_engine() {  # link_engine TARGET: ~/.local/bin/skillopt-sleep -> TARGET, unless taken
    link="$USER_BIN/$NAME"
    if [ -L "$link" ] && [ "$(readlink "$link")" = "$1" ]; then return 0; fi
    if [ -e "$link" ] || [ -L "$link" ]; then
        say "engine: $link exists and is not ours; leaving it (the plugins find the engine anyway)"
        return 0
    fi
    make_dirs "$USER_BIN"
    run ln -s "$1" "$link" && record link "$link" "$1"
    case ":$PATH:" in
        *":$USER_BIN:"*) ;;
        *) say "note: $USER_BIN is not on PATH; add it to run '$NAME' from your shell" ;;
    esac
}

# Directories pipx or uv creates on first use: "PATH rm" is the tool's own (removed whole once the
# tool holds no other package), "PATH rmdir" a shared one (removed only when empty). The ones
# that did not exist before our install are recorded and removed again on uninstall.
tool_paths() {
    data=${XDG_DATA_HOME:-$HOME/.local/share}
    state=${XDG_STATE_HOME:-$HOME/.local/state}
    cache=${XDG_CACHE_HOME:-$HOME/.cache}
    case $1 in
        pipx) printf '%s rm\n' "${PIPX_HOME:-$data/pipx}" "$state/pipx" "$cache/pipx"
            printf '%s rmdir\n' "$data/man/man1" "$data/man" ;;
        uv) printf '%s rm\n' "${UV_TOOL_DIR:-$data/uv/tools}" "$data/uv" "$cache/uv" ;;
    esac
    printf '%s rmdir\n' "$USER_BIN"
}

missing_tool_paths() {  # "TOOL DIR HOW" for every missing tool dir and missing parent
    for t in pipx uv; do
        tool_paths "$t" | while read -r p how; do
            missing_dirs "$p" | while read -r d; do
                [ -n "$d" ] || continue
                if [ "$d" = "$p" ]; then say "$t $d $how"; else say "$t $d rmdir"; fi
            done
        done
    done
}

record_tool_paths() {  # record_tool_paths TOOL SNAPSHOT: the ones that tool's install creates
    printf '%s\n' "$2" | while read -r t d how; do
        [ "$t" = "$1" ] || continue
        recorded tool-path "$d" || record tool-path "$d" "$t/$how"
    done
}

install_engine() {
    # Before any pipx or uv call: even `pipx list` creates directories.
    absent_tool_paths=$(missing_tool_paths)
    tool=$(choose_tool)
    for t in pipx uv venv pip; do
        case $t in pipx | uv) command -v "$t" >/dev/null 2>&1 || continue ;; esac
        v=$(installed_version "$t")
        [ -n "$v" ] || continue
        if recorded package "$t" && [ "$v" = "$VERSION" ]; then
            say "engine: $NAME $v already installed with $t"
            return 0
        fi
        if ! recorded package "$t"; then
            say "engine: $NAME $v is already installed with $t (not by this script);" \
                "leaving it"
            [ "$v" = "$VERSION" ] ||
                say "  note: this checkout is $VERSION; upgrade with $t yourself"
            return 0
        fi
        tool=$t  # ours, at another version: upgrade it in place
        say "engine: upgrading $NAME $v to $VERSION ($t)"
    done
    case $tool in
        pipx) command -v pipx >/dev/null 2>&1 || die "--with pipx: pipx is not on PATH" ;;
        uv) command -v uv >/dev/null 2>&1 || die "--with uv: uv is not on PATH" ;;
    esac
    if [ "$DRY" = 1 ]; then
        where=${PACKAGE:-"a wheel built from $SRC"}
        [ "$tool" = venv ] && where="$where into $ENGINE_VENV"
        say "would install the engine $NAME $VERSION with $tool from $where"
        return 0
    fi
    if [ -n "$PACKAGE" ]; then spec=$PACKAGE; else spec=$(build_wheel) || exit 1; fi
    case $tool in
        pipx | uv) recorded package "$tool" || record_tool_paths "$tool" "$absent_tool_paths" ;;
    esac
    case $tool in
        pipx) run pipx install --force "$spec" && ok=1 || ok=0 ;;
        uv) run uv tool install --force "$spec" && ok=1 || ok=0 ;;
        venv) install_with_venv "$spec" && ok=1 || ok=0 ;;
        pip) install_with_pip "$spec" && ok=1 || ok=0 ;;
    esac
    [ "$ok" = 1 ] || die "installing the engine with $tool failed (see above)"
    recorded package "$tool" || record package "$tool" "$PY"
}

uninstall_engine() {  # uninstall_engine TOOL PYTHON
    case $1 in
        pipx) run pipx uninstall "$NAME" ;;
        uv) run uv tool uninstall "$NAME" ;;
        venv) run rm -rf "$ENGINE_VENV" ;;
        pip) : ;;  # its distributions are removed one by one (pip-dist lines)
    esac
}

engine_cmd() {  # the installed engine's path, for the schedule
    for c in "$ENGINE_VENV/bin/$NAME" "$USER_BIN/$NAME"; do
        if [ -x "$c" ]; then say "$c"; return; fi
    done
    if command -v "$NAME" >/dev/null 2>&1; then command -v "$NAME"; return; fi
    user_bin="$("$PY" -m site --user-base 2>/dev/null)/bin"
    for c in "${PIPX_BIN_DIR:-$USER_BIN}/$NAME" "$user_bin/$NAME"; do
        if [ -x "$c" ]; then say "$c"; return; fi
    done
    say "$SRC/plugins/claude-code/bin/$NAME"
}

# --- Claude Code -----------------------------------------------------------------------------

want_agent() {  # want_agent WANT BINARY CONFIG_DIR
    case $1 in
        yes) return 0 ;;
        no) return 1 ;;
    esac
    command -v "$2" >/dev/null 2>&1 || [ -d "$3" ]
}

# Files and directories `claude plugin ...` creates when they are missing; the ones it created
# for us are removed again on uninstall once they hold nothing.
claude_paths() {
    printf '%s\n' "$CLAUDE_DIR" "$CLAUDE_DIR/plugins" "$CLAUDE_DIR/plugins/cache" \
        "$CLAUDE_DIR/plugins/marketplaces" "$CLAUDE_DIR/plugins/installed_plugins.json" \
        "$CLAUDE_DIR/plugins/known_marketplaces.json" "$CLAUDE_DIR/settings.json"
}

# The plugin as Claude Code loads it: a marketplace directory this installation owns, so the
# plugin keeps working when the checkout is moved or deleted.
stage_claude_market() {
    rm -rf "$CLAUDE_MARKET_DIR"
    mkdir -p "$CLAUDE_MARKET_DIR/.claude-plugin" "$CLAUDE_MARKET_DIR/plugins" &&
        cp "$SRC/.claude-plugin/marketplace.json" "$CLAUDE_MARKET_DIR/.claude-plugin/" &&
        cp -R "$SRC/plugins/claude-code" "$CLAUDE_MARKET_DIR/plugins/" ||
        die "cannot copy the Claude Code plugin to $CLAUDE_MARKET_DIR"
}

claude_has_plugin() {  # read from Claude Code's own file: running `claude` would create files
    grep -q "\"$PLUGIN_ID\"" "$CLAUDE_DIR/plugins/installed_plugins.json" 2>/dev/null
}

install_claude() {
    if [ "$DRY" = 0 ]; then
        command -v claude >/dev/null 2>&1 || die "--claude: the claude CLI is not on PATH"
    fi
    fresh=0
    if [ -d "$CLAUDE_MARKET_DIR" ]; then
        [ "$(tree_sum "$CLAUDE_MARKET_DIR/plugins/claude-code")" = \
            "$(tree_sum "$SRC/plugins/claude-code")" ] || fresh=1
    else
        fresh=1
    fi
    if recorded claude-plugin "$PLUGIN_ID" && [ "$fresh" = 0 ] && claude_has_plugin; then
        say "claude code: plugin $PLUGIN_ID already installed"
        return 0
    fi
    if ! recorded claude-plugin "$PLUGIN_ID" && claude_has_plugin; then
        say "claude code: plugin $PLUGIN_ID is installed (not by this script); leaving it"
        return 0
    fi
    if [ "$DRY" = 1 ]; then
        say "would copy: $SRC/plugins/claude-code -> $CLAUDE_MARKET_DIR/plugins/claude-code"
        say "would run: claude plugin marketplace add $CLAUDE_MARKET_DIR"
        say "would run: claude plugin install $PLUGIN_ID"
        return 0
    fi
    absent=$(claude_paths | while read -r p; do [ -e "$p" ] || say "$p"; done)
    make_dirs "$OWN_DIR"
    say "+ cp -R $SRC/plugins/claude-code $CLAUDE_MARKET_DIR/plugins/"
    stage_claude_market
    recorded claude-copy "$CLAUDE_MARKET_DIR" || record claude-copy "$CLAUDE_MARKET_DIR"
    if recorded claude-plugin "$PLUGIN_ID"; then  # an upgrade: Claude Code re-reads the copy
        run claude plugin marketplace update "$MARKET" </dev/null ||
            die "claude plugin marketplace update failed"
        run claude plugin update "$PLUGIN_ID" </dev/null || die "claude plugin update failed"
        return 0
    fi
    if ! recorded claude-marketplace "$MARKET"; then
        run claude plugin marketplace add "$CLAUDE_MARKET_DIR" </dev/null ||
            die "claude plugin marketplace add failed"
        record claude-marketplace "$MARKET"
    fi
    run claude plugin install "$PLUGIN_ID" </dev/null || die "claude plugin install failed"
    printf '%s\n' "$absent" | while read -r p; do
        [ -n "$p" ] && [ -e "$p" ] && record claude-path "$p"
    done
    record claude-plugin "$PLUGIN_ID"
}

# json_is_empty FILE: true when FILE holds only empty objects/lists (and a format version).
json_is_empty() {
    "$PY" - "$1" <<'EOF'
import json, sys
def empty(v):
    if isinstance(v, dict):
        return all(k == "version" or empty(x) for k, x in v.items())
    return isinstance(v, list) and not v
try:
    sys.exit(0 if empty(json.load(open(sys.argv[1], encoding="utf-8"))) else 1)
except (OSError, ValueError):
    sys.exit(1)
EOF
}

# --- Codex -----------------------------------------------------------------------------------

install_codex() {
    from="$SRC/plugins/codex/skills/$NAME"
    dest="$SKILLS_DIR/$NAME"
    sum=$(tree_sum "$from")
    if [ -d "$dest" ] && [ "$(tree_sum "$dest")" = "$sum" ]; then
        say "codex: skill already installed at $dest"
        return 0
    fi
    if [ -e "$dest" ] && ! recorded skill "$dest"; then
        say "codex: $dest exists and was not installed by this script; leaving it"
        return 0
    fi
    make_dirs "$SKILLS_DIR"
    if [ "$DRY" = 1 ]; then
        say "would copy: $from -> $dest"
        return 0
    fi
    if recorded skill "$dest"; then
        rm -rf "$dest"
        grep -v "^skill$TAB$dest$TAB" "$MANIFEST" >"$MANIFEST.tmp" && mv "$MANIFEST.tmp" "$MANIFEST"
    fi
    say "+ cp -R $from $dest"
    cp -R "$from" "$dest" || die "cannot copy the Codex skill to $dest"
    record skill "$dest" "$sum"
}

# --- the schedule ----------------------------------------------------------------------------

maybe_schedule() {
    if recorded schedule yes; then
        say "schedule: already installed (see: $NAME schedule status)"
        return 0
    fi
    if [ "$SCHEDULE" = ask ]; then
        if [ "$YES" = 0 ] && [ "$DRY" = 0 ] && [ -t 0 ]; then
            printf 'Schedule the nightly run now? [y/N] '
            read -r answer || answer=
            case $answer in [yY]*) SCHEDULE=yes ;; *) SCHEDULE=no ;; esac
        else
            SCHEDULE=no
        fi
    fi
    if [ "$SCHEDULE" = no ]; then
        say "schedule: not installed; run '$NAME schedule' when you want the nightly run"
        return 0
    fi
    engine=$(engine_cmd)
    run "$engine" schedule || die "'$NAME schedule' failed (see above); the rest is installed"
    record schedule yes "$engine"
}

# --- uninstall -------------------------------------------------------------------------------

# remove_claude_leftovers PATHS: Claude Code's bookkeeping files that our install created,
# once the plugin and marketplace are gone and they hold nothing (deepest first).
remove_claude_leftovers() {
    old_ifs=$IFS
    IFS=$TAB
    for p in $1; do
        if [ -d "$p" ]; then
            rmdir "$p" 2>/dev/null || true
        elif [ -f "$p" ] && json_is_empty "$p"; then
            rm -f "$p"
        fi
    done
    IFS=$old_ifs
}

# remove_tool_leftovers "PATH TOOL/HOW<tab>...": the directories pipx or uv made for our install
# (newest, deepest first), once that tool holds no other package.
remove_tool_leftovers() {
    [ -n "$1" ] || return 0
    # Asked once, before removing anything: pipx writes a log file on every call.
    pipx_others=$(pipx list --short 2>/dev/null)
    uv_others=$(uv tool list 2>/dev/null | grep -v '^No tools installed')
    old_ifs=$IFS
    IFS=$TAB
    for entry in $1; do
        p=${entry% *}
        how=${entry##* }
        [ -e "$p" ] || continue
        case $how in
            */rmdir) rmdir "$p" 2>/dev/null || true ;;
            pipx/rm) [ -n "$pipx_others" ] || rm -rf "$p" ;;
            uv/rm) [ -n "$uv_others" ] || rm -rf "$p" ;;
        esac
    done
    IFS=$old_ifs
}

uninstall() {
    if [ ! -f "$MANIFEST" ]; then
        say "nothing to uninstall: no manifest at $MANIFEST"
        return 0
    fi
    lines=$(sed -n '1!G;h;$p' "$MANIFEST")  # newest first
    failed=
    dirs=
    claude_left=
    tool_left=
    old_ifs=$IFS
    while IFS=$TAB read -r kind value extra; do
        IFS=$old_ifs
        ok=1
        case $kind in
            schedule) run "$extra" unschedule || ok=0 ;;
            skill)
                if [ -d "$value" ] && [ "$(tree_sum "$value")" != "$extra" ]; then
                    say "codex: $value changed since it was installed; leaving it"
                elif [ -d "$value" ]; then
                    run rm -rf "$value"
                fi
                ;;
            claude-plugin) run claude plugin uninstall "$value" </dev/null || ok=0 ;;
            claude-marketplace)
                run claude plugin marketplace remove "$value" </dev/null || ok=0
                cache="$CLAUDE_DIR/plugins/cache/$value"  # our copy, orphaned by the removal
                if [ -d "$cache" ]; then run rm -rf "$cache"; fi
                ;;
            claude-path) claude_left="$claude_left$value$TAB" ;;
            claude-copy) run rm -rf "$value" ;;
            package) uninstall_engine "$value" "${extra:-$PY}" || ok=0 ;;
            pip-dist) run "${extra:-$PY}" -m pip uninstall -q -y "$value" || ok=0 ;;
            file) [ ! -e "$value" ] || run rm -f "$value" ;;
            link)
                if [ -L "$value" ] && [ "$(readlink "$value")" = "$extra" ]; then
                    run rm -f "$value"
                fi
                ;;
            tool-path) tool_left="$tool_left$value $extra$TAB" ;;
            dir) dirs="$dirs$value$TAB" ;;
        esac
        [ "$ok" = 1 ] || failed="$failed$kind$TAB$value$TAB$extra
"
    done <<EOF
$lines
EOF
    IFS=$old_ifs
    if [ -n "$failed" ]; then
        [ "$DRY" = 1 ] || printf '%s' "$failed" >"$MANIFEST"
        die "some steps failed (above); fix them and run --uninstall again"
    fi
    [ "$DRY" = 1 ] && { say "would remove: $MANIFEST"; return 0; }
    remove_claude_leftovers "$claude_left"
    remove_tool_leftovers "$tool_left"
    rm -f "$MANIFEST"
    IFS=$TAB
    for d in $dirs; do rmdir "$d" 2>/dev/null || true; done  # newest (deepest) first
    IFS=$old_ifs
    say "uninstalled. Your task log and nights are kept; '$NAME' data lives in its data directory."
}

# --- main ------------------------------------------------------------------------------------

PY=$(pick_python) || die "no python3 on PATH: install Python 3.10 or newer first"
[ "$DRY" = 1 ] && say "dry run: nothing will change"

if [ "$UNINSTALL" = 1 ]; then
    uninstall
    exit $?
fi

open_manifest
install_engine
if want_agent "$WANT_CLAUDE" claude "$CLAUDE_DIR"; then
    install_claude
else
    say "claude code: not found; skipped"
fi
if want_agent "$WANT_CODEX" codex "${CODEX_HOME:-$HOME/.codex}"; then
    install_codex
else
    say "codex: not found; skipped"
fi
maybe_schedule
say "done: skillopt-sleep $VERSION. Check it with: $NAME doctor"
