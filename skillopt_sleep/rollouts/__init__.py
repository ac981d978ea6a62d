"""Rollouts: K attempts per task under given instructions.

Replay through a model backend (concurrent under a limit, cached, metered), and the choice of which
tasks the real agent replays in its sandbox instead. Both loops (the night and training) draw their
attempts here; the evidence gate counts what they score.
"""
