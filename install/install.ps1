<#
.SYNOPSIS
Install skillopt-sleep on Windows from this checkout: the engine (pipx, else uv, else a private
virtual environment), the Claude Code plugin and the Codex skill for the agents found here, and,
if asked, the nightly schedule. Every change goes into a manifest, so -Uninstall removes exactly
those. This script only finds a Python 3.10 or newer and hands over to `skillopt-sleep setup`
(skillopt_sleep\setup\), which does every step, as install.sh does.

.EXAMPLE
powershell -ExecutionPolicy Bypass -File install\install.ps1 -DryRun
powershell -ExecutionPolicy Bypass -File install\install.ps1 -Schedule
powershell -ExecutionPolicy Bypass -File install\install.ps1 -Uninstall
#>
[CmdletBinding()]
param(
    [switch]$DryRun,
    [switch]$Uninstall,
    [switch]$Schedule,
    [switch]$NoSchedule,
    [switch]$Yes,
    [ValidateSet("", "pipx", "uv", "venv", "pip")][string]$With = "",
    [switch]$Claude,
    [switch]$NoClaude,
    [switch]$Codex,
    [switch]$NoCodex,
    [string]$Package = ""
)
$ErrorActionPreference = "Stop"
Set-StrictMode -Version Latest

$Src = (Resolve-Path (Join-Path $PSScriptRoot "..")).Path
$Record = Join-Path $env:LOCALAPPDATA "skillopt-sleep\engine-command"

function Fail([string]$Message) { [Console]::Error.WriteLine("install.ps1: error: $Message"); exit 1 }

# The options as `skillopt-sleep setup` spells them.
$SetupArgs = @()
if ($DryRun) { $SetupArgs += "--dry-run" }
if ($Uninstall) { $SetupArgs += "--uninstall" }
if ($Schedule) { $SetupArgs += "--schedule" }
if ($NoSchedule) { $SetupArgs += "--no-schedule" }
if ($Yes) { $SetupArgs += "--yes" }
if ($With) { $SetupArgs += @("--with", $With) }
if ($Claude) { $SetupArgs += "--claude" }
if ($NoClaude) { $SetupArgs += "--no-claude" }
if ($Codex) { $SetupArgs += "--codex" }
if ($NoCodex) { $SetupArgs += "--no-codex" }
if ($Package) { $SetupArgs += @("--package", $Package) }

# The first Python 3.10 or newer: the py launcher, then python3 and python on PATH.
function Find-Python {
    foreach ($candidate in @("py -3", "python3", "python")) {
        $exe, $rest = $candidate -split " "
        $rest = @($rest | Where-Object { $_ })
        if (-not (Get-Command $exe -ErrorAction SilentlyContinue)) { continue }
        & $exe @rest -c "import sys; sys.exit(sys.version_info < (3, 10))" 2>$null
        if ($LASTEXITCODE -eq 0) {
            return (& $exe @rest -c "import sys; print(sys.executable)").Trim()
        }
    }
    return $null
}

$env:SKILLOPT_SLEEP_INSTALLER = "install.ps1"
$env:PYTHONDONTWRITEBYTECODE = "1"  # nothing written into the checkout

if ((Test-Path (Join-Path $Src "pyproject.toml")) -and (Test-Path (Join-Path $Src "skillopt_sleep\setup\main.py"))) {
    $Py = Find-Python
    if (-not $Py) { Fail "no Python 3.10 or newer found: install one from python.org first" }
    # The checkout's sources and the standard library alone; setup takes PYTHONPATH out of every
    # command it starts, so pip sees what is installed, not this checkout.
    $env:PYTHONPATH = $Src
    & $Py -m skillopt_sleep.setup --source $Src @SetupArgs
    exit $LASTEXITCODE
}

# No checkout around this script (the clone is gone): only the installed engine can uninstall.
if ($Uninstall -and (Test-Path $Record)) {
    $engine = (Get-Content $Record -TotalCount 1).Trim()
    if (Test-Path $engine) { & $engine setup @SetupArgs; exit $LASTEXITCODE }
}
Fail "run this script from a skillopt-sleep checkout ($Src has no pyproject.toml)"
