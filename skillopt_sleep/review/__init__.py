"""The morning: review, adopt, reject and roll back a night's proposal, and what adopted rules did since.

Diffs and reports (terminal, markdown, HTML), edit-by-edit adoption through the same guards and a
crash journal, backups for byte-exact rollback, and the ledger of outcomes that tells a rule that
works from one that does not.
"""
