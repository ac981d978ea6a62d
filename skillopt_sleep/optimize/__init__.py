"""The rounds both loops share: reflect on scored rollouts, propose edits, test each edit alone.

The seams the rounds work through (proposer, drawer, gate), contrastive reflection and the proposer
built on the optimizer backend, task selection and seeds, merging of proposed edits, and the edits
held back as unconfirmed. The night (:mod:`skillopt_sleep.night`) and training
(:mod:`skillopt_sleep.train`) are two loops over these rounds.
"""
