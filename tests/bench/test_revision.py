"""A bench's baseline revision extracts on every Python the package supports: tarfile's extraction
filters came in 3.12 and the 3.11.4 / 3.10.12 patch releases, and Debian 12's python3 (3.11.2) has
none."""

from __future__ import annotations

import subprocess
import tarfile

import pytest

from bench.revision import REPO, extract


@pytest.mark.parametrize("filters", [True, False], ids=["with-filters", "without-filters"])
def test_the_package_of_a_revision_is_extracted_as_committed(filters, monkeypatch, tmp_path):
    if not filters:
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    elif not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python's tarfile has no extraction filters")
    root = extract("HEAD", tmp_path / "base")
    committed = subprocess.run(
        ["git", "-C", str(REPO), "show", "HEAD:skillopt_sleep/__init__.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert (root / "skillopt_sleep" / "__init__.py").read_text() == committed


def test_a_revision_git_does_not_know_is_one_line_naming_it(tmp_path):
    with pytest.raises(SystemExit, match="git archive no-such-revision failed"):
        extract("no-such-revision", tmp_path / "base")
