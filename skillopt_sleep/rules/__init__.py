"""Rules: the text a night may write, and the rails it is written within.

The managed block (the only part of a user's file a night writes), the files a project lets it change
(the workspace), the guards every edit passes (length, clauses, fit with the user's own lines, refused
wordings), and the lint that judges a rule's decoded text, its language and the classes of harm it must
never carry.
"""
