"""Checks: scoring one attempt against a task's checks.

What the user asked for, as rule checks (text, regex, file and action checks) and rubrics, judged on a
rollout's answer and on what a recorded attempt did. Used wherever an attempt is scored: the harvest
(a check held against the user's own example), the environments, replays, the night and training.
"""
