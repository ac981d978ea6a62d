"""The nightly schedule: one job per platform (cron, launchd, systemd, schtasks), its runner and logs."""
