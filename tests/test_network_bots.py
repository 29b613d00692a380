"""Network models of the learned bots (docs/learned-bots.md "Network models"; core/kit/learned.pxi,
sim/kit/network.py, cluster/net_fit.py): the core's scores are numpy's, a network game replays alone and through
its trace, sees nothing its seat cannot, keeps the record invariants, bad network files are refused in one
line, and the fit is deterministic and learns what it is shown."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cluster.net_fit import NetSpec, fit_network, positions, value_chances
from sim import games as registry
from sim.kit import trace
from sim.kit.learned import Model, float32s, read_model, seat_chances
from sim.kit.network import Layers, block_size, policy_network, state_views
from sim.params import RuleError
from tests.test_paws_invariants import check_record


def network_model(game: str, seed: int = 1, hidden: int = 8, scale: float = 1.0, policy: dict | None = None,
                  name: str = "net") -> Model:
    """A network model with random weights of a visible effect (output weights of ``scale``), over a linear
    policy (``policy``: weights by feature name; default the heuristic's pick, 1)."""
    features = registry.get(game).features
    rng = np.random.default_rng(seed)
    names = [n for n, _ in features.policy]
    lin = [0.0] * len(names)
    for k, v in (policy or {"heuristic_pick": 1.0}).items():
        lin[names.index(k)] = v
    size = block_size(len(features.policy), len(features.value), features.max_seats, hidden)
    block = rng.normal(0, 1, size) * 0.5
    layers = Layers.unpack(block, len(features.policy), len(features.value), features.max_seats, hidden)
    block = Layers(layers.p_w1, layers.p_b1, layers.p_w2 * scale, layers.v_w1, layers.v_b1, layers.v_w2 * scale).pack()
    return Model(game, name, features.id, tuple(lin), tuple(rng.normal(0, 1, len(features.value)).round(6)),
                 {"made_by": "tests/test_network_bots.py"}, hidden, features.max_seats, float32s(block))


def write(path: Path, model: Model) -> Path:
    path.write_text(model.to_json())
    return path


@pytest.fixture(scope="module")
def paws_net(tmp_path_factory) -> Path:
    return write(tmp_path_factory.mktemp("models") / "paws-net.json", network_model("paws", 3))


@pytest.fixture(scope="module")
def tales_net(tmp_path_factory) -> Path:
    return write(tmp_path_factory.mktemp("models") / "tales-net.json", network_model("tales", 4))


def _seats(game: str, setup: dict) -> int:
    if game == "paws":
        return setup.get("players", 4)
    return 4 if setup.get("mode") == "2v2" else 2


def _paused(game: str, model_path: Path, setup: dict):
    m = registry.get(game).resolve(None, {}, {**setup, "bots": f"learned:model={model_path}," + ",".join(
        ["heuristic"] * (_seats(game, setup) - 1))}, {})
    if game == "paws":
        from core.paws_scenario import PausedGame
        from sim.paws.core_engine import core_inputs
    else:
        from core.tales_scenario import PausedGame
        from sim.tales.core_engine import core_inputs
    return PausedGame, core_inputs(m.setup, m.rules, m.data)


@pytest.mark.parametrize("game, setup", [("paws", {}), ("paws", {"board": "explorer", "players": 3}),
                                         ("paws", {"mode": "teams", "players": 4}), ("tales", {}),
                                         ("tales", {"mode": "2v2"})])
def test_the_cores_network_scores_are_numpys(game, setup, paws_net, tales_net):
    path = paws_net if game == "paws" else tales_net
    model = read_model(path, registry.get(game).features)
    teams = registry.get(game).resolve(None, {}, {**setup, "bots": "heuristic"}, {}).setup.mode in ("teams", "2v2")
    checked = 0
    for pg in seat_0_decisions(game, path, setup, 11, range(6), range(0, 200, 7)):
        options, seats = pg.learned_features()
        core_scores, core_chances = pg.learned_scores()
        n = len(seats)
        views = state_views(np.pad(np.asarray(seats, float)[None], ((0, 0), (0, model.seats - n), (0, 0))),
                            np.array([n]), model.seats)[0]
        x = np.asarray(options, dtype=float)
        mine = x @ np.array(model.policy) + policy_network(model.layers(), x, np.repeat(views[:1], len(x), 0))
        np.testing.assert_allclose(core_scores, mine, rtol=1e-5, atol=1e-5)
        chances = seat_chances(seats, model)
        if teams:
            chances = np.array([chances[s] + chances[(s + 2) % 4] for s in range(n)])
        np.testing.assert_allclose(core_chances, chances, rtol=1e-5, atol=1e-6)
        assert len(set(np.round(mine, 6))) > 1 or len(mine) == 1
        checked += 1
    assert checked >= 10


def seat_0_decisions(game: str, path: Path, setup: dict, seed: int, indexes, stops):
    """Seat 0's decisions (a learned seat with ``path``'s model) in games ``indexes`` of ``seed``, paused at
    each of ``stops`` that is seat 0's."""
    PausedGame, inputs = _paused(game, path, setup)
    for index in indexes:
        for stop in stops:
            pg = PausedGame(inputs, seed, index, stop)
            if not pg.paused:
                break
            if pg.seat == 0:
                yield pg


def test_a_network_changes_play_and_a_zero_network_does_not(tmp_path):
    g = registry.get("paws")
    linear = Model("paws", "lin", g.features.id, network_model("paws").policy, network_model("paws").value)
    zero = network_model("paws", scale=0.0)
    assert zero.policy == linear.policy and zero.digest != linear.digest
    lp, zp, np_ = (write(tmp_path / f"{n}.json", m) for n, m in
                   (("lin", linear), ("zero", zero), ("net", network_model("paws", scale=1.0))))
    play = lambda p: g.resolve(None, {}, {"bots": f"learned:model={p}"}, {}).play_batch(5, 0, 30)["games"].drop(["bots"])
    assert play(lp).equals(play(zp))
    assert not play(lp).equals(play(np_))


def test_a_network_game_replays_alone_and_through_its_trace_and_keeps_the_invariants(paws_net, tales_net):
    for game, path, setups in (("paws", paws_net, ({}, {"board": "explorer", "players": 2}, {"mode": "teams"})),
                               ("tales", tales_net, ({}, {"mode": "2v2"}))):
        for setup in setups:
            m = registry.get(game).resolve(None, {}, {**setup, "bots": f"learned:model={path}"}, {})
            batch = m.play_batch(9, 0, 30)["games"].to_pylist()
            for i in (0, 29):
                assert m.play_batch(9, i, 1)["games"].to_pylist()[0] == batch[i]
                record, blob = trace.core_game(m, 9, i)
                replayed = trace.replay(m, 9, i, blob)
                assert {k: replayed[k] for k in record} == record
            if game == "paws":
                for rec in m.play_batch(2, 0, 300)["games"].to_pylist():
                    check_record(rec, m.setup)


@pytest.mark.parametrize("game", ["paws", "tales"])
def test_re_dealing_hidden_cards_and_reseeding_the_dice_change_no_network_score(game, paws_net, tales_net):
    path = paws_net if game == "paws" else tales_net
    checked = 0
    for pg in seat_0_decisions(game, path, {}, 5, range(20), range(0, 200, 9)):
        if len(pg.options()) < 2:
            continue
        scores = pg.learned_scores()
        for redeal in (1, 2):
            other = pg.copy()
            other.redeal(0, redeal)
            other.reseed(redeal + 100)
            assert other.options() == pg.options() and other.learned_scores() == scores
        checked += 1
    assert checked >= 15


def _good(tmp_path: Path) -> dict:
    return json.loads(write(tmp_path / "good.json", network_model("paws", hidden=2)).read_text())


@pytest.mark.parametrize("change, message", [
    (lambda d: d["network"].update(weights=d["network"]["weights"][:-1]), r"network\.weights: expected a list of \d+ numbers"),
    (lambda d: d["network"].update(hidden=0), r"network\.hidden = 0; expected a whole number from 1 to 128"),
    (lambda d: d["network"].update(hidden=True), r"network\.hidden = True"),
    (lambda d: d["network"].update(hidden=3), r"network\.weights: expected a list of \d+ numbers"),
    (lambda d: d["network"].update(seats=2), r"network\.seats = 2; paws's core holds 4"),
    (lambda d: d.pop("network"), r"network must be a table"),
    (lambda d: d["network"]["weights"].__setitem__(5, "x"), r"network\.weights\[5\] = 'x': expected a finite number"),
    (lambda d: d["network"]["weights"].__setitem__(5, 1e300), r"network\.weights\[5\] = 1e\+300"),
    (lambda d: d["network"]["weights"].__setitem__(5, d["network"]["weights"][5] + 1.0), r"digest = .* but its weights"),
    (lambda d: d.update(version=3), r"version = 3; this playtest reads versions 1 \(linear\) and 2 \(network\)"),
    (lambda d: d.update(game="tales"), r"a model of 'tales', not of 'paws'"),
])
def test_a_bad_network_file_is_refused_in_one_line(tmp_path, change, message):
    doc = _good(tmp_path)
    change(doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(RuleError, match=message) as err:
        read_model(bad, registry.get("paws").features)
    assert "\n" not in str(err.value) and str(bad) in str(err.value)


def test_a_cut_or_huge_network_file_is_refused_in_one_line(tmp_path):
    text = write(tmp_path / "m.json", network_model("paws", hidden=4)).read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    with pytest.raises(RuleError, match="cut.json") as err:
        read_model(cut, registry.get("paws").features)
    assert "\n" not in str(err.value)
    huge = tmp_path / "huge.json"
    huge.write_text(text[:-2] + " " * (1 << 20) + "}\n")
    with pytest.raises(RuleError, match="huge.json"):
        read_model(huge, registry.get("paws").features)


def _samples(game: str, bots: str, seed: int, games: int) -> dict:
    g = registry.get(game)
    m = g.resolve(None, {}, {"bots": bots}, {})
    out = g.play_samples(m, seed, 0, games)
    return {"options": out["options"], "seats": out["seats"], "outcome_games": out["outcome"]}


@pytest.fixture(scope="module")
def search_samples():
    return _samples("paws", "mcts:iterations=32:depth=8", 7, 6)


def test_fitting_twice_gives_the_same_model_bytes(search_samples):
    g = registry.get("paws")
    start = read_model(g.models_dir / "paws-2.json", g.features)
    a = fit_network(g.features, start, search_samples, NetSpec(hidden=4, steps=15, seed=2), "a", {})
    b = fit_network(g.features, start, search_samples, NetSpec(hidden=4, steps=15, seed=2), "a", {})
    assert a.to_json() == b.to_json() and a.hidden == 4
    c = fit_network(g.features, start, search_samples, NetSpec(hidden=4, steps=15, seed=3), "a", {})
    assert c.digest != a.digest


def test_the_fit_lowers_both_losses_from_its_start_and_reads_back(search_samples, tmp_path):
    g = registry.get("paws")
    start = read_model(g.models_dir / "paws-2.json", g.features)
    spec = NetSpec(hidden=8, steps=60, seed=1)
    zero = fit_network(g.features, start, search_samples, NetSpec(hidden=8, steps=0, seed=1), "z", {})
    fitted = fit_network(g.features, start, search_samples, spec, "f", {})
    assert fitted.provenance["policy_loss"] < zero.provenance["policy_loss"]
    assert fitted.provenance["value_loss"] < zero.provenance["value_loss"]
    pos = positions(search_samples, g.features)
    p0, y, _ = value_chances(start, pos)
    p1, _, _ = value_chances(fitted, pos)
    assert ((p1 - y) ** 2).mean() < ((p0 - y) ** 2).mean()
    assert read_model(write(tmp_path / "f.json", fitted), g.features) == fitted


@pytest.mark.parametrize("network", [0, 2])
def test_a_fit_from_a_start_with_a_decisions_block_keeps_the_block(search_samples, network):
    """The search labels only the policy's decisions, so a model fitted from a start with a block (paws-4's) plays
    the other decisions as the start does; a start without one gives a model without one."""
    from cluster.train_bot import TrainSpec, fit_model
    g = registry.get("paws")
    spec = TrainSpec(game="paws", name="kept", network=network)
    blocked = read_model(g.models_dir / "paws-4.json", g.features)
    plain = read_model(g.models_dir / "paws-3.json", g.features)
    assert blocked.decisions and not plain.decisions
    kept = fit_model(g, spec, search_samples, {}, blocked)
    assert kept.decisions == blocked.decisions and kept.decision_features == blocked.decision_features
    assert kept.policy != blocked.policy and kept.name == "kept"
    none = fit_model(g, spec, search_samples, {}, plain)
    assert not none.decisions and none.decision_features == plain.decision_features
    assert fit_model(g, spec, search_samples, {}, None).decisions == ()


@pytest.mark.slow
@pytest.mark.ray
def test_train_bot_fits_a_network_twice_to_the_same_bytes_and_resumes_from_parquet(tmp_path, ray_local):
    from cluster.train_bot import TrainRun, TrainSpec, _load_samples, train
    spec = TrainSpec(game="paws", name="tinynet", search="mcts:iterations=6:depth=4", iterations=2, games=4, batch=2,
                     eval_games=2, seed=9, improve=0, network=4, start="paws-2")
    a = train(TrainRun(spec, tmp_path / "a.json", tmp_path / "a.work"))
    b = train(TrainRun(spec, tmp_path / "b.json", tmp_path / "b.work"))
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert a.hidden == 4 and read_model(tmp_path / "a.json", registry.get("paws").features) == a
    its = a.provenance["iterations"]
    assert [it["guided_by_model"] for it in its] == [True, True]       # the start model guides the first search
    samples = _load_samples(tmp_path / "a.work" / "samples-0.parquet")
    assert len(samples["outcome_games"]) == 4 and its[0]["searched_decisions"] == len(
        set(zip(samples["options"]["game"].tolist(), samples["options"]["decision"].tolist())))
    resumed = train(TrainRun(spec, tmp_path / "c.json", tmp_path / "a.work"))        # from the work folder
    assert resumed.digest == a.digest
    # the provenance names the training data by digest, the same read back from the Parquet samples
    assert a.provenance["samples_digest"] == b.provenance["samples_digest"] == resumed.provenance["samples_digest"]
    assert len(a.provenance["samples_digest"]) == 64


def test_train_bot_refuses_a_bad_network_or_start_in_one_line(tmp_path):
    from typer.testing import CliRunner
    from cli.main import app
    runner = CliRunner()
    for args, message in ((["--network", "129"], "--network 129 is out of range; expected an integer from 0 to 128"),
                          (["--network", "-1"], "--network -1 is out of range"),
                          (["--network", "4", "--start", "nope"], "no model 'nope'"),
                          (["--start", "/etc/passwd"], "/etc/passwd: not valid JSON")):
        r = runner.invoke(app, ["train-bot", "paws", "--out", str(tmp_path / "m.json"), *args])
        assert r.exit_code == 2, r.output
        assert message in r.output and len(r.output.strip().splitlines()) == 1, r.output


def test_policy_improvement_moves_the_linear_policy_and_the_networks_output_weights_only():
    from cluster.train_bot import policy_vector, with_policy_vector
    net = network_model("paws", 5, hidden=6)
    v = policy_vector(net)
    assert len(v) == len(net.policy) + 6
    assert with_policy_vector(net, v).digest == net.digest                 # the same model back
    moved = with_policy_vector(net, v + 0.5)
    a, b = net.layers(), moved.layers()
    assert np.array_equal(a.p_w1, b.p_w1) and np.array_equal(a.v_w1, b.v_w1) and np.array_equal(a.v_w2, b.v_w2)
    np.testing.assert_allclose(b.p_w2, a.p_w2 + 0.5, rtol=1e-6)
    assert moved.value == net.value and moved.policy == tuple(round(x + 0.5, 9) for x in net.policy)
    linear = Model("paws", "lin", net.features, net.policy, net.value)
    assert len(policy_vector(linear)) == len(net.policy) and with_policy_vector(linear, policy_vector(linear)) == linear
