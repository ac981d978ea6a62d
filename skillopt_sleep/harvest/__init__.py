"""The task log's input: real Claude Code and Codex sessions become TaskRecords.

- ``claude_code`` / ``codex``: pure parsers, one per agent (lines in, turns out);
- ``turns`` / ``cues``: what each later user turn is (new request, correction, praise, follow-up);
  ``turn_judge``: the judge model for the turns the rules are unsure of;
- ``mine`` / ``feedback`` / ``check_miner``: turns to redacted TaskRecords, corrections to
  feedback, outcomes and validated rule checks; ``preferences``: corrections seen again;
- ``run`` (``Harvester``, ``HarvestPlan``) and ``scan``: the incremental harvest with cursors;
- ``hook`` / ``drain``: the SessionEnd logger (``skillopt-sleep log``);
- ``llm_checks``: checks mined by the optimizer backend (``model_helper``: their shared calls).
  Synthetic transcripts for tests and benchmarks live in ``bench/worlds/synthetic.py``.

Nothing is imported here, so ``log`` (run on every session end) loads only what it needs.
"""
