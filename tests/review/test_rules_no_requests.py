"""``rules`` on a rule adopted from a log of one task: with no other request of its kind, before
adoption or since, it says so, where before it read "none of the 0 other requests of its kind
before adoption was corrected this way, so there is no rate to compare; 0 since"."""

from __future__ import annotations

from tests.night.test_unconfirmed import RULE, _run
from tests.night.test_unconfirmed import log as log


def test_a_rule_with_no_other_request_of_its_kind_says_there_is_none_yet(cli, log):
    project = log([("type-hints", 0, "train")])
    _run(cli, project, "--json")
    assert cli("adopt", "--project", str(project)).code == 0
    r = cli("rules", "--project", str(project))
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    at = next(i for i, line in enumerate(lines) if RULE in line)
    assert lines[at + 1].strip() == "no data yet: no other request of its kind yet"
    assert "0 other requests" not in r.out
    [rule] = cli("rules", "--project", str(project), "--json").json()["rules"]
    assert rule["before"] == {"requests": 0, "corrected": 0}
