"""``run --estimate`` as it was before, for the before/after of ``bench/estimate.py``."""
