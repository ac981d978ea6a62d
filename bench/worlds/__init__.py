"""Simulated worlds the benchmarks and the tests share: agent session files as Claude Code and Codex
write them, and a user with recurring preferences. Not part of the package: the benchmarks find it
beside them, the tests through ``tests/conftest.py``."""
