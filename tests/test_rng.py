"""The random generator: PCG32 as published, the core and the pure-Python twin bit for bit."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

from core.rng import CoreRng, py_game_seed, py_splitmix64, stream
from sim.rng import M64, Rng, game_seed, splitmix64


def test_pcg32_matches_the_published_reference_stream():
    # pcg32-demo from pcg-random.org: pcg32_srandom(42, 54), first six outputs
    expected = [0xA15C02B7, 0x7B47F409, 0xBA1D3330, 0x83D2F293, 0xBFA4784B, 0xCBED606E]
    assert [Rng(42, 54).next32() for _ in range(1)] == expected[:1]
    r, c = Rng(42, 54), CoreRng(42, 54)
    assert [r.next32() for _ in range(6)] == expected
    assert [c.next32() for _ in range(6)] == expected


def test_splitmix64_matches_the_published_first_output():
    # SplitMix64 with state 0: the first output is 0xE220A8397B1DCDAF
    assert splitmix64(0) == 0xE220A8397B1DCDAF
    assert py_splitmix64(0) == 0xE220A8397B1DCDAF


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, M64), st.integers(0, 2**40))
def test_core_and_twin_agree_on_game_streams(master, index):
    assert game_seed(master, index) == py_game_seed(master, index)
    r = Rng.for_game(master, index)
    assert [r.next32() for _ in range(40)] == stream(master, index, 40)


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(0, M64), st.integers(1, 2**32 - 1), st.integers(0, 2**20))
def test_core_and_twin_agree_on_below_die_and_shuffle(seed, n, stream_id):
    r, c = Rng(seed, stream_id), CoreRng(seed, stream_id)
    assert [r.below(n) for _ in range(20)] == [c.below(n) for _ in range(20)]
    assert [r.die() for _ in range(20)] == [c.die() for _ in range(20)]
    a, b = list(range(50)), list(range(50))
    r.shuffle(a)
    c.shuffle(b)
    assert a == b and sorted(a) == list(range(50))


def test_below_is_unbiased_where_modulo_would_not_be():
    # n = 3 * 2**30: plain r % n would give the low third of residues twice the weight
    n = 3 * 2**30
    r = Rng(7, 1)
    draws = [r.below(n) for _ in range(30000)]
    low = sum(d < 2**30 for d in draws) / len(draws)
    assert 0.31 < low < 0.356  # 1/3 expected; modulo bias would give 1/2
    assert max(draws) < n


def test_dice_are_fair_and_in_range():
    r = Rng.for_game(1, 0)
    counts = [0] * 7
    for _ in range(60000):
        counts[r.die()] += 1
    assert counts[0] == 0
    assert all(9500 < c < 10500 for c in counts[1:])


def test_each_game_has_its_own_stream_independent_of_its_neighbours():
    a = [Rng.for_game(5, i).next32() for i in range(1000)]
    assert len(set(a)) == 1000
    assert Rng.for_game(5, 17).next32() == a[17]


def test_below_rejects_out_of_range_in_the_core_view():
    with pytest.raises(ValueError):
        CoreRng(1).below(0)
