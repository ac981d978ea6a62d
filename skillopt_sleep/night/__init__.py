"""One night of a project: select, replay, reflect, gate, stage; and the project's night around it.

A night changes nothing live: it stages a proposal (:mod:`.stage`) for the morning's review. Around
it, :mod:`.project` runs a project's night from the store: retests after a model change, removals of
rules the user now corrects, auto-adopt of what a night proved, and the estimate of what a night will
call before it spends anything.
"""
