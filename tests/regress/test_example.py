"""The example nightly suite is valid and its checked-in baseline belongs to it."""

from pathlib import Path

from regress import baseline
from regress.suite import load_suite

ROOT = Path(__file__).resolve().parents[2]


def test_nightly_suite_and_baseline_agree():
    suite = load_suite(ROOT / "examples" / "nightly.toml")
    b = baseline.load(ROOT / "examples" / "nightly-baseline.json")
    assert b["suite"] == suite.name and b["game"] == suite.game and b["spec_digest"] == suite.digest
    assert b["seeds"] == list(suite.seeds) and b["games_per_cell"] == suite.games_per_cell
    spec = suite.spec(suite.seeds[0])
    assert [c["values"] for c in b["cells"]] == [c.values for c in spec.cells]
    assert [c["config"] for c in b["cells"]] == [c.match.digest for c in spec.cells]
    for cell in b["cells"]:
        assert set(cell["records"]) == {str(s) for s in suite.seeds}
        assert sum(cell["metrics"]["end_reasons"].values()) == len(suite.seeds) * suite.games_per_cell
    assert (ROOT / "examples" / "nightly-baseline.json").stat().st_size < 30_000
