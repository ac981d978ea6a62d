"""The task log's input: real Claude Code and Codex sessions become TaskRecords.

- ``claude_code`` / ``codex``: pure parsers, one per agent (lines in, turns out);
- ``mine`` / ``feedback``: turns to redacted TaskRecords, corrections to feedback and checks;
- ``run`` (``Harvester``, ``HarvestPlan``) and ``scan``: the incremental harvest with cursors;
- ``hook`` / ``drain``: the SessionEnd logger (``skillopt-sleep log``);
- ``llm_checks``: checks mined by the optimizer backend; ``synthetic``: transcripts for tests.

Nothing is imported here, so ``log`` (run on every session end) loads only what it needs.
"""
