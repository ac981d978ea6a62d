"""Marks that tell skillopt-sleep's own replays apart from the user's real sessions."""

# Set in the environment of every agent process a replay starts; the hook logger and the
# harvesters ignore sessions that carry it, so replays never become tomorrow's tasks.
REPLAY_ENV = "SKILLOPT_SLEEP_REPLAY"
# Put at the start of every replay prompt, for transcripts written despite the above.
REPLAY_MARKER = "[skillopt-sleep replay]"
