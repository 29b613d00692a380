"""Bad suite files and bad baselines are refused with the file, the key and what is allowed."""

import json

import pytest

from regress import baseline
from regress.suite import SuiteError, load_suite

GOOD = """
name = "small"
seeds = [1, 2]
[sweep]
game = "paws"
games_per_cell = 100
[sweep.grid]
players = [3, 4]
[thresholds]
level = 0.05
[thresholds.min_effect]
stall_rate = 0.01
"""


def write(tmp_path, text, name="suite.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_good_suite(tmp_path):
    s = load_suite(write(tmp_path, GOOD))
    assert s.name == "small" and s.seeds == (1, 2) and s.game == "paws"
    assert s.thresholds.method == "bh" and s.thresholds.level == 0.05
    assert s.thresholds.min_effect["stall_rate"] == 0.01
    assert s.thresholds.min_effect["seat_win_rate"] == 0.02          # the default of a rate
    assert s.thresholds.min_effect["game_length"] == 0.5             # the default of a length (rounds)
    spec = s.spec(2)
    assert spec.seed == 2 and [c.values for c in spec.cells] == [{"players": 3}, {"players": 4}]
    assert s.with_seeds((9,)).seeds == (9,)


@pytest.mark.parametrize("change, message", [
    (("", "colour = 'red'\n"), "unknown key 'colour'; valid: name, description, seeds, fail_on, sweep, thresholds"),
    (("level = 0.05", "level = 2"), "thresholds.level = 2 is not allowed; expected a number above 0 and at most 0.5"),
    (("level = 0.05", "method = 'bonferroni'"), "thresholds.method = 'bonferroni' is not allowed; expected one of bh, holm"),
    (("level = 0.05", "alpha = 0.05"), "unknown key thresholds.alpha; valid: method, level, min_effect"),
    (("stall_rate = 0.01", "win_rate = 0.01"), "unknown metric family thresholds.min_effect.win_rate; valid: "
                                               "bot_win_rate, end_reasons, game_length, idle_turns, lead_changes, seat_win_rate"),
    (("stall_rate = 0.01", "stall_rate = -1"), "thresholds.min_effect.stall_rate = -1 is not allowed"),
    (("seeds = [1, 2]", "seeds = []"), "seeds = [] is not allowed; expected a non-empty list of integers >= 0"),
    (("seeds = [1, 2]", "seeds = [3, 3]"), "repeats a seed"),
    (("seeds = [1, 2]", "seeds = [1]\nfail_on = ['speed']"), "fail_on = ['speed'] is not allowed; expected a list of "
                                                             "behaviour, drift"),
    (("players = [3, 4]", "players = [3, 5]"), "[sweep]: cell c001 (players=5): players = 5 is not allowed; expected 2, 3 or 4"),
    (("games_per_cell = 100", "games_per_cell = 100\n[sweep.overrides]\ndesert_hael = 0"),
     "[overrides] unknown rule parameter 'desert_hael'"),
    (("game = \"paws\"", "game = \"chess\""), "sweep.game = 'chess' is not allowed; expected one of paws"),
    (("[sweep]", "[swept]"), "unknown key 'swept'"),
    (("seeds = [1, 2]", "seeds = [1, 2"), "not valid TOML"),
])
def test_bad_suite_names_file_key_and_allowed_values(tmp_path, change, message):
    old, new = change
    text = (new + GOOD) if old == "" else GOOD.replace(old, new, 1)
    path = write(tmp_path, text)
    with pytest.raises(SuiteError) as e:
        load_suite(path)
    assert str(path) in str(e.value)
    assert message in str(e.value)


def test_missing_suite_file(tmp_path):
    with pytest.raises(SuiteError, match="no such suite file"):
        load_suite(tmp_path / "nope.toml")


def valid_baseline() -> dict:
    cell = {"id": "c000", "values": {"players": 3}, "config": "a" * 16, "rules": "b" * 16, "data": "c" * 16,
            "games": {"1": 100}, "records": {"1": "0" * 64},
            "metrics": {"stall_rate": {"stalled": [2, 100]}, "end_reasons": {"vp": 98, "stalled": 2}}}
    snap = {"suite": "small", "game": "paws", "code_version": "v", "core_digest": "d", "spec_digest": "s",
            "seeds": [1], "games_per_cell": 100, "sweep": {"game": "paws"}, "cells": [cell], "runs": [],
            "thresholds": {}, "record_columns": {"seed": "int64", "vp": "list<item: int8>"}}
    return baseline.from_snapshot(snap)


def test_baseline_round_trip_is_small_and_versioned(tmp_path):
    b = valid_baseline()
    baseline.write(b, tmp_path / "b.json")
    assert baseline.load(tmp_path / "b.json") == b
    text = (tmp_path / "b.json").read_text()
    assert '"format": "playtest-regress-baseline"' in text and '"version": 1' in text
    assert '"stall_rate": {"stalled": [2, 100]}' in text   # counts on one line: a reviewable diff
    assert "runs" not in json.loads(text) and "thresholds" not in json.loads(text)


@pytest.mark.parametrize("corrupt, message", [
    (lambda b: "{not json", "corrupt baseline: not valid JSON"),
    (lambda b: [1, 2], "expected a JSON object at the top"),
    (lambda b: b | {"format": "something-else"}, "not a regression baseline: format = 'something-else'"),
    (lambda b: b | {"version": 99}, "baseline version 99 is not supported; this playtest reads version 1"),
    (lambda b: {k: v for k, v in b.items() if k != "cells"}, "missing key cells"),
    (lambda b: b | {"seeds": "1"}, "seeds = '1' is not allowed; expected a non-empty list of distinct integers"),
    (lambda b: b | {"cells": [{k: v for k, v in b["cells"][0].items() if k != "records"}]},
     "missing key cells[0].records"),
    (lambda b: b | {"cells": [b["cells"][0] | {"records": {"1": "abc"}}]},
     "cells[0].records.1 = 'abc' is not allowed; expected a sha256"),
    (lambda b: b | {"cells": [b["cells"][0] | {"metrics": {"stall_rate": {"stalled": [5, 3]}}}]},
     "cells[0].metrics.stall_rate.stalled = [5, 3] is not allowed; expected [k, n]: k of n, integers with "
     "0 <= k <= n"),
    (lambda b: b | {"record_columns": {"seed": 64}}, "record_columns.seed = 64 is not allowed; expected a column "
                                                    "type as text"),
])
def test_corrupt_baseline_is_a_clear_error(tmp_path, corrupt, message):
    path = tmp_path / "b.json"
    data = corrupt(valid_baseline())
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(baseline.BaselineError) as e:
        baseline.load(path)
    assert str(path) in str(e.value) and message in str(e.value)


def test_missing_baseline_says_how_to_make_one(tmp_path):
    with pytest.raises(baseline.BaselineError, match="no such baseline file .*--update-baseline"):
        baseline.load(tmp_path / "none.json")
