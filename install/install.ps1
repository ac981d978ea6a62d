<#
.SYNOPSIS
Install skillopt-sleep on Windows from this checkout: the engine (pipx, else uv, else
pip --user), the Claude Code plugin and the Codex skill for the agents found here, and, if
asked, the nightly schedule. Every change goes into a manifest, so -Uninstall removes exactly
those. The same steps as install.sh.

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
    [ValidateSet("", "pipx", "uv", "pip")][string]$With = "",
    [switch]$Claude,
    [switch]$NoClaude,
    [switch]$Codex,
    [switch]$NoCodex,
    [string]$Package = ""
)
$ErrorActionPreference = "Stop"
Set-StrictMode -Version Latest

$Name = "skillopt-sleep"
$PluginId = "skillopt-sleep@skillopt-sleep"
$Src = (Resolve-Path (Join-Path $PSScriptRoot "..")).Path
$StateDir = Join-Path $env:LOCALAPPDATA $Name
$Manifest = Join-Path $StateDir "install-manifest.txt"
$ClaudeDir = if ($env:CLAUDE_CONFIG_DIR) { $env:CLAUDE_CONFIG_DIR } else { Join-Path $HOME ".claude" }
$CodexDir = if ($env:CODEX_HOME) { $env:CODEX_HOME } else { Join-Path $HOME ".codex" }
$SkillsDir = Join-Path $HOME ".agents\skills"
# pip must leave no self-check or cache files behind: uninstall restores the tree exactly.
$env:PIP_DISABLE_PIP_VERSION_CHECK = "1"
$env:PIP_NO_CACHE_DIR = "1"

function Fail([string]$Message) { Write-Error "install.ps1: error: $Message"; exit 1 }

if (-not (Test-Path (Join-Path $Src "pyproject.toml"))) {
    Fail "run this script from a skillopt-sleep checkout ($Src has no pyproject.toml)"
}
$Version = (Select-String -Path (Join-Path $Src "skillopt_sleep\__init__.py") `
    -Pattern '^__version__ = "(.*)"$').Matches[0].Groups[1].Value

function Has([string]$Command) { [bool](Get-Command $Command -ErrorAction SilentlyContinue) }

# Step WHAT ACTION: runs ACTION (or only prints WHAT under -DryRun); returns whether it worked.
# Everything it prints goes to the host, so the return value is only the boolean.
function Step([string]$What, [scriptblock]$Action) {
    if ($DryRun) { Write-Host "would run: $What"; return $true }
    Write-Host "+ $What"
    $global:LASTEXITCODE = 0
    & $Action | Out-Host
    return ($LASTEXITCODE -eq 0)
}

function Record([string]$Kind, [string]$Value, [string]$Extra = "") {
    if (-not $DryRun) { Add-Content -Path $Manifest -Value "$Kind`t$Value`t$Extra" }
}

function Recorded([string]$Kind, [string]$Value) {
    (Test-Path $Manifest) -and [bool](Get-Content $Manifest | Where-Object { $_ -like "$Kind`t$Value`t*" })
}

function MakeDirs([string]$Dir) {
    $missing = @()
    $d = $Dir
    while ($d -and -not (Test-Path $d)) { $missing = @($d) + $missing; $d = Split-Path $d -Parent }
    foreach ($m in $missing) {
        if ($DryRun) { Write-Output "would create: $m"; continue }
        New-Item -ItemType Directory -Path $m | Out-Null
        if (Test-Path $Manifest) { Record "dir" $m } else { $script:PendingDirs += $m }
    }
}

function TreeSum([string]$Dir) {
    $files = Get-ChildItem -Path $Dir -Recurse -File | Sort-Object FullName
    $text = ($files | ForEach-Object {
        $_.FullName.Substring($Dir.Length) + (Get-FileHash $_.FullName -Algorithm SHA256).Hash
    }) -join "`n"
    $bytes = [System.Text.Encoding]::UTF8.GetBytes($text)
    [BitConverter]::ToString([System.Security.Cryptography.SHA256]::Create().ComputeHash($bytes))
}

function Python {
    foreach ($p in @("py", "python3", "python")) { if (Has $p) { return $p } }
    Fail "no Python on PATH: install Python 3.10 or newer first"
}

function InstalledVersion([string]$Tool) {
    switch ($Tool) {
        "pipx" { (pipx list --short 2>$null) | ForEach-Object { if ($_ -match "^$Name (\S+)") { $Matches[1] } } }
        "uv" { (uv tool list 2>$null) | ForEach-Object { if ($_ -match "^$Name v(\S+)") { $Matches[1] } } }
        "pip" { (& $Py -m pip list --user --format=freeze 2>$null) |
                ForEach-Object { if ($_ -match "^$Name==(\S+)") { $Matches[1] } } }
    }
}

function InstallEngine {
    foreach ($t in @("pipx", "uv", "pip")) {
        if ($t -ne "pip" -and -not (Has $t)) { continue }
        $v = InstalledVersion $t
        if (-not $v) { continue }
        if (Recorded "package" $t) {
            if ($v -eq $Version) { Write-Output "engine: $Name $v already installed with $t"; return }
        } else {
            Write-Output "engine: $Name $v is already installed with $t (not by this script); leaving it"
            return
        }
    }
    $tool = if ($With) { $With } elseif (Has "pipx") { "pipx" } elseif (Has "uv") { "uv" } else { "pip" }
    if ($DryRun) { Write-Output "would install the engine $Name $Version with $tool from $(if ($Package) { $Package } else { $Src })"; return }
    $spec = $Package
    $stage = $null
    if (-not $spec) {
        # A copy of the sources, so a build leaves nothing in the checkout.
        $stage = Join-Path ([IO.Path]::GetTempPath()) ("skillopt-sleep-src-" + [guid]::NewGuid())
        New-Item -ItemType Directory -Path $stage | Out-Null
        Copy-Item (Join-Path $Src "pyproject.toml"), (Join-Path $Src "README.md") $stage
        Copy-Item (Join-Path $Src "skillopt_sleep") $stage -Recurse
        Get-ChildItem $stage -Recurse -Directory -Filter "__pycache__" | Remove-Item -Recurse -Force
        $spec = $stage
    }
    $ok = switch ($tool) {
        "pipx" { Step "pipx install --force $spec" { pipx install --force $spec } }
        "uv" { Step "uv tool install --force $spec" { uv tool install --force $spec } }
        "pip" {
            $site = & $Py -m site --user-site
            $d = $site
            $missing = @()
            while ($d -and -not (Test-Path $d)) { $missing = @($d) + $missing; $d = Split-Path $d -Parent }
            foreach ($m in $missing) { Record "dir" $m }
            Step "$Py -m pip install -q --user $spec" { & $Py -m pip install -q --user --no-warn-script-location $spec }
        }
    }
    if ($stage) { Remove-Item $stage -Recurse -Force }
    if (-not $ok) { Fail "installing the engine with $tool failed (see above)" }
    Record "package" $tool $Py
}

function WantAgent([bool]$On, [bool]$Off, [string]$Binary, [string]$ConfigDir) {
    if ($On) { return $true }
    if ($Off) { return $false }
    return (Has $Binary) -or (Test-Path $ConfigDir)
}

function InstallClaude {
    if (-not (Has "claude")) { Fail "-Claude: the claude CLI is not on PATH" }
    if ((claude plugin list 2>$null) -match [regex]::Escape($PluginId)) {
        Write-Output "claude code: plugin $PluginId already installed"; return
    }
    $paths = @($ClaudeDir, "$ClaudeDir\plugins", "$ClaudeDir\plugins\cache", "$ClaudeDir\plugins\marketplaces",
        "$ClaudeDir\plugins\installed_plugins.json", "$ClaudeDir\plugins\known_marketplaces.json",
        "$ClaudeDir\settings.json")
    $absent = $paths | Where-Object { -not (Test-Path $_) }
    if (-not (Recorded "claude-marketplace" $Name)) {
        if (-not (Step "claude plugin marketplace add $Src" { claude plugin marketplace add $Src })) {
            Fail "claude plugin marketplace add failed"
        }
        Record "claude-marketplace" $Name
    }
    if (-not (Step "claude plugin install $PluginId" { claude plugin install $PluginId })) {
        Fail "claude plugin install failed"
    }
    foreach ($p in $absent) { if (Test-Path $p) { Record "claude-path" $p } }
    Record "claude-plugin" $PluginId
}

function InstallCodex {
    $from = Join-Path $Src "plugins\codex\skills\$Name"
    $dest = Join-Path $SkillsDir $Name
    $sum = TreeSum $from
    if ((Test-Path $dest) -and ((TreeSum $dest) -eq $sum)) { Write-Output "codex: skill already installed at $dest"; return }
    if ((Test-Path $dest) -and -not (Recorded "skill" $dest)) {
        Write-Output "codex: $dest exists and was not installed by this script; leaving it"; return
    }
    MakeDirs $SkillsDir
    if ($DryRun) { Write-Output "would copy: $from -> $dest"; return }
    if (Recorded "skill" $dest) {
        Remove-Item $dest -Recurse -Force
        Set-Content $Manifest (Get-Content $Manifest | Where-Object { $_ -notlike "skill`t$dest`t*" })
    }
    Write-Output "+ copy $from -> $dest"
    Copy-Item $from $dest -Recurse
    Record "skill" $dest $sum
}

function EngineCommand {
    $cmd = Get-Command $Name -ErrorAction SilentlyContinue
    if ($cmd) { return $cmd.Source }
    return (Join-Path (Split-Path (& $Py -m site --user-site) -Parent) "Scripts\$Name.exe")
}

function MaybeSchedule {
    if (Recorded "schedule" "yes") { Write-Output "schedule: already installed (see: $Name schedule status)"; return }
    $want = $Schedule
    if (-not $Schedule -and -not $NoSchedule -and -not $Yes -and -not $DryRun -and [Environment]::UserInteractive `
            -and -not [Console]::IsInputRedirected) {
        $want = (Read-Host "Schedule the nightly run now? [y/N]") -match "^[yY]"
    }
    if (-not $want) { Write-Output "schedule: not installed; run '$Name schedule' when you want the nightly run"; return }
    $engine = EngineCommand
    if (-not (Step "$engine schedule" { & $engine schedule })) { Fail "'$Name schedule' failed (see above); the rest is installed" }
    Record "schedule" "yes" $engine
}

function JsonIsEmpty([string]$Path) {
    function Empty($v) {
        if ($v -is [System.Management.Automation.PSCustomObject]) {
            foreach ($p in $v.PSObject.Properties) { if ($p.Name -ne "version" -and -not (Empty $p.Value)) { return $false } }
            return $true
        }
        return ($v -is [array]) -and $v.Count -eq 0
    }
    try { return Empty (Get-Content $Path -Raw | ConvertFrom-Json) } catch { return $false }
}

function UninstallAll {
    if (-not (Test-Path $Manifest)) { Write-Output "nothing to uninstall: no manifest at $Manifest"; return }
    $lines = @(Get-Content $Manifest)
    [array]::Reverse($lines)
    $failed = @(); $dirs = @(); $claudeLeft = @()
    foreach ($line in $lines) {
        $kind, $value, $extra = $line -split "`t", 3
        $ok = $true
        switch ($kind) {
            "schedule" { $ok = Step "$extra unschedule" { & $extra unschedule } }
            "skill" {
                if ((Test-Path $value) -and ((TreeSum $value) -ne $extra)) {
                    Write-Output "codex: $value changed since it was installed; leaving it"
                } elseif (Test-Path $value) { $ok = Step "remove $value" { Remove-Item $value -Recurse -Force } }
            }
            "claude-plugin" { $ok = Step "claude plugin uninstall $value" { claude plugin uninstall $value } }
            "claude-marketplace" {
                $ok = Step "claude plugin marketplace remove $value" { claude plugin marketplace remove $value }
                $cache = Join-Path $ClaudeDir "plugins\cache\$value"
                if (Test-Path $cache) { Step "remove $cache" { Remove-Item $cache -Recurse -Force } | Out-Null }
            }
            "claude-path" { $claudeLeft += $value }
            "package" {
                $ok = switch ($value) {
                    "pipx" { Step "pipx uninstall $Name" { pipx uninstall $Name } }
                    "uv" { Step "uv tool uninstall $Name" { uv tool uninstall $Name } }
                    "pip" { Step "$extra -m pip uninstall -y $Name" { & $extra -m pip uninstall -q -y $Name } }
                }
            }
            "dir" { $dirs += $value }
        }
        if (-not $ok) { $failed += $line }
    }
    if ($failed.Count) {
        if (-not $DryRun) { [array]::Reverse($failed); Set-Content $Manifest $failed }
        Fail "some steps failed (above); fix them and run -Uninstall again"
    }
    if ($DryRun) { Write-Output "would remove: $Manifest"; return }
    foreach ($p in $claudeLeft) {
        if ((Test-Path $p -PathType Container) -and -not (Get-ChildItem $p -Force)) { Remove-Item $p }
        elseif ((Test-Path $p -PathType Leaf) -and (JsonIsEmpty $p)) { Remove-Item $p }
    }
    Remove-Item $Manifest
    foreach ($d in $dirs) { if ((Test-Path $d) -and -not (Get-ChildItem $d -Force)) { Remove-Item $d } }
    Write-Output "uninstalled. Your task log and nights are kept in skillopt-sleep's data directory."
}

$Py = Python
$PendingDirs = @()
if ($DryRun) { Write-Output "dry run: nothing will change" }
if ($Uninstall) { UninstallAll; exit 0 }

MakeDirs $StateDir
if (-not $DryRun -and -not (Test-Path $Manifest)) {
    New-Item -ItemType File -Path $Manifest | Out-Null
    foreach ($d in $PendingDirs) { Record "dir" $d }
}
InstallEngine
if (WantAgent $Claude $NoClaude "claude" $ClaudeDir) { InstallClaude } else { Write-Output "claude code: not found; skipped" }
if (WantAgent $Codex $NoCodex "codex" $CodexDir) { InstallCodex } else { Write-Output "codex: not found; skipped" }
MaybeSchedule
Write-Output "done: skillopt-sleep $Version. Check it with: $Name doctor"
