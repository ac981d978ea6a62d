#!/bin/sh
# Install skillopt-sleep from this checkout: the engine (pipx, else uv, else pip --user), the
# Claude Code plugin and the Codex skill for the agents found here, and, if asked, the nightly
# schedule. Every change is written to a manifest, so `--uninstall` removes exactly those.
#
#   sh install/install.sh [--dry-run] [--uninstall] [--schedule | --no-schedule] [--yes]
#                         [--with pipx|uv|pip] [--claude | --no-claude] [--codex | --no-codex]
#                         [--package SPEC]
set -u

PROG=install.sh
SRC=$(cd "$(dirname "$0")/.." && pwd -P)
NAME=skillopt-sleep
MARKET=skillopt-sleep
PLUGIN_ID="$NAME@$MARKET"
STATE_DIR="${XDG_STATE_HOME:-$HOME/.local/state}/$NAME"
MANIFEST="$STATE_DIR/install-manifest.txt"
CLAUDE_DIR="${CLAUDE_CONFIG_DIR:-$HOME/.claude}"
SKILLS_DIR="$HOME/.agents/skills"
TAB=$(printf '\t')
# pip must leave no self-check or cache files behind: uninstall restores the tree exactly.
PIP_DISABLE_PIP_VERSION_CHECK=1
PIP_NO_CACHE_DIR=1
export PIP_DISABLE_PIP_VERSION_CHECK PIP_NO_CACHE_DIR

DRY=0 UNINSTALL=0 SCHEDULE=ask YES=0 TOOL= WANT_CLAUDE=auto WANT_CODEX=auto PACKAGE=
NEW_MANIFEST=

say() { printf '%s\n' "$*"; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

usage() {
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
}

while [ $# -gt 0 ]; do
    case $1 in
        --dry-run) DRY=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --schedule) SCHEDULE=yes ;;
        --no-schedule) SCHEDULE=no ;;
        --yes | -y) YES=1 ;;
        --with) [ $# -ge 2 ] || die "--with needs pipx, uv or pip"; TOOL=$2; shift ;;
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
case $TOOL in "" | pipx | uv | pip) ;; *) die "--with takes pipx, uv or pip, not '$TOOL'" ;; esac
[ -f "$SRC/pyproject.toml" ] && [ -d "$SRC/skillopt_sleep" ] ||
    die "run this script from a skillopt-sleep checkout ($SRC has no pyproject.toml)"
VERSION=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$SRC/skillopt_sleep/__init__.py")

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

pick_python() {
    for p in python3 python; do
        if command -v "$p" >/dev/null 2>&1; then command -v "$p"; return 0; fi
    done
    return 1
}

# --- the engine ------------------------------------------------------------------------------

installed_version() {  # installed_version TOOL: the version that tool has installed, or nothing
    case $1 in
        pipx) pipx list --short 2>/dev/null | sed -n "s/^$NAME \([^ ]*\).*/\1/p" ;;
        uv) uv tool list 2>/dev/null | sed -n "s/^$NAME v\([^ ]*\).*/\1/p" ;;
        # Only the user site: a system or editable install elsewhere is not ours to manage.
        pip) "$PY" -m pip list --user --format=freeze 2>/dev/null | sed -n "s/^$NAME==//p" ;;
    esac
}

choose_tool() {
    if [ -n "$TOOL" ]; then say "$TOOL"; return; fi
    if command -v pipx >/dev/null 2>&1; then say pipx
    elif command -v uv >/dev/null 2>&1; then say uv
    else say pip
    fi
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

install_engine() {
    tool=$(choose_tool)
    for t in pipx uv pip; do
        [ "$t" = pip ] || command -v "$t" >/dev/null 2>&1 || continue
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
    done
    case $tool in
        pipx) command -v pipx >/dev/null 2>&1 || die "--with pipx: pipx is not on PATH" ;;
        uv) command -v uv >/dev/null 2>&1 || die "--with uv: uv is not on PATH" ;;
    esac
    if [ "$DRY" = 1 ]; then
        say "would install the engine $NAME $VERSION with $tool from ${PACKAGE:-$SRC}"
        return 0
    fi
    if [ -n "$PACKAGE" ]; then spec=$PACKAGE; stage=; else stage=$(stage_source); spec=$stage; fi
    case $tool in
        pipx) run pipx install --force "$spec" && ok=1 || ok=0 ;;
        uv) run uv tool install --force "$spec" && ok=1 || ok=0 ;;
        pip)
            base=$("$PY" -m site --user-base) || die "$PY cannot report its user base"
            site=$("$PY" -m site --user-site)
            expect_dirs "$base/bin"
            expect_dirs "$site"
            run "$PY" -m pip install -q --user --no-warn-script-location "$spec" &&
                ok=1 || ok=0
            ;;
    esac
    [ -n "$stage" ] && rm -rf "$stage"
    [ "$ok" = 1 ] || die "installing the engine with $tool failed (see above)"
    record package "$tool" "$PY"
}

uninstall_engine() {  # uninstall_engine TOOL PYTHON
    case $1 in
        pipx) run pipx uninstall "$NAME" ;;
        uv) run uv tool uninstall "$NAME" ;;
        pip) run "$2" -m pip uninstall -q -y "$NAME" ;;
    esac
}

engine_cmd() {  # the installed engine's path, for the schedule
    if command -v "$NAME" >/dev/null 2>&1; then command -v "$NAME"; return; fi
    user_bin="$("$PY" -m site --user-base 2>/dev/null)/bin"
    for c in "${PIPX_BIN_DIR:-$HOME/.local/bin}/$NAME" "$user_bin/$NAME"; do
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

install_claude() {
    command -v claude >/dev/null 2>&1 || die "--claude: the claude CLI is not on PATH"
    if claude plugin list </dev/null 2>/dev/null | grep -q "$PLUGIN_ID"; then
        say "claude code: plugin $PLUGIN_ID already installed"
        return 0
    fi
    absent=$(claude_paths | while read -r p; do [ -e "$p" ] || say "$p"; done)
    if recorded claude-marketplace "$MARKET"; then :; else
        run claude plugin marketplace add "$SRC" </dev/null ||
            die "claude plugin marketplace add failed"
        record claude-marketplace "$MARKET"
    fi
    run claude plugin install "$PLUGIN_ID" </dev/null || die "claude plugin install failed"
    [ "$DRY" = 1 ] && return 0
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

uninstall() {
    if [ ! -f "$MANIFEST" ]; then
        say "nothing to uninstall: no manifest at $MANIFEST"
        return 0
    fi
    lines=$(sed -n '1!G;h;$p' "$MANIFEST")  # newest first
    failed=
    dirs=
    claude_left=
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
            package) uninstall_engine "$value" "${extra:-$PY}" || ok=0 ;;
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
