"""The engine cores' C declarations cannot drift from their Python source of truth.

Each game's ``sim/<game>/core_engine.py`` says, in ``DECLARATIONS``, which Python declaration every
struct and enumeration of its ``.pxd`` follows: the rule parameters, the heuristic bot's weights, the
card fields the core plays with, the game record, the IntEnums of ``kinds.py`` and the name lists of
coded values. These tests parse the ``.pxd`` (a small parser for ``ctypedef struct`` blocks and
``cdef enum`` constants) and hold it to them: names, order, C types, per-seat arrays, values, and the
size of the compiled GameRecord. They also check that the core refuses a rule parameter or bot weight it
has no field for, which the dict-to-struct conversion would otherwise silently drop.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import re
from pathlib import Path

import numpy as np
import pytest

from sim.games import GAMES as REGISTRY, BatchOptions, BatchRequest, get
from sim.params import param
from sim.record_schema import Column

ROOT = Path(__file__).resolve().parent.parent
GAMES = {name: importlib.import_module(REGISTRY[name].core_module) for name in REGISTRY.names()}   # every game

# value ranges of the C types a declaration may use
C_RANGE = {"int": (-2**31, 2**31 - 1), "int8_t": (-2**7, 2**7 - 1), "int16_t": (-2**15, 2**15 - 1),
           "int32_t": (-2**31, 2**31 - 1), "int64_t": (-2**63, 2**63 - 1), "uint8_t": (0, 2**8 - 1),
           "uint64_t": (0, 2**64 - 1)}
# the C type of one record value, by its numpy storage type in the record declaration
C_OF_STORAGE = {"int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t", "uint64": "uint64_t",
                "bool": "int8_t"}


# -- a small .pxd parser ----------------------------------------------------------------------------------
def parse_pxd(path: Path) -> tuple[dict[str, list[tuple[str, str, list[str]]]], dict[str, int]]:
    """({struct: [(C type, field, [dims])]}, {enum constant: value}) of a .pxd file."""
    structs: dict[str, list] = {}
    constants: dict[str, int] = {}
    block = None  # ("struct", name) or ("enum", None) while inside an indented block
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line:
            continue
        if not line[0].isspace():
            block = None
            m = re.fullmatch(r"ctypedef struct (\w+):", line)
            if m:
                block = ("struct", m.group(1))
                structs[m.group(1)] = []
            elif re.fullmatch(r"cdef enum( \w+)?:", line):
                block = ("enum", None)
            continue
        if block is None:
            continue
        if block[0] == "struct":
            m = re.fullmatch(r"\s+(?P<type>(?:const )?\w+\s*\**)\s*(?P<name>\w+)(?P<dims>(?:\[[^\]]+\])*)", line)
            assert m, f"{path.name}: cannot read struct field {raw.strip()!r}"
            dims = re.findall(r"\[([^\]]+)\]", m.group("dims"))
            structs[block[1]].append((m.group("type").replace(" ", ""), m.group("name"), dims))
        else:
            m = re.fullmatch(r"\s+(\w+)\s*=\s*(-?\d+)", line)
            assert m, f"{path.name}: cannot read enum constant {raw.strip()!r}"
            constants[m.group(1)] = int(m.group(2))
    return structs, constants


def dim_value(dim: str, constants: dict[str, int]) -> int:
    """An array dimension: a number, a constant, or a sum or product of them (MAXP + 1)."""
    return eval(dim, {"__builtins__": {}}, dict(constants))  # the .pxd is the repository's own file


@pytest.fixture(params=sorted(GAMES), scope="module")
def game(request):
    mod = GAMES[request.param]
    decl = mod.DECLARATIONS
    structs, constants = parse_pxd(ROOT / decl["pxd"])
    return request.param, mod, decl, structs, constants


def test_the_parser_reads_a_struct_and_an_enum(tmp_path):
    pxd = tmp_path / "x.pxd"
    pxd.write_text("cdef enum:\n    MAXP = 4    # seats\n    NOBODY = -1\n\n# a comment\nctypedef struct S:\n"
                   "    int a          # first\n    # a note\n    int8_t b[MAXP + 1]\n    const Spec* c\n"
                   "    int16_t d[2][MAXP]\n\ncdef int f(int x)\n")
    structs, constants = parse_pxd(pxd)
    assert constants == {"MAXP": 4, "NOBODY": -1}
    assert structs == {"S": [("int", "a", []), ("int8_t", "b", ["MAXP + 1"]), ("constSpec*", "c", []),
                             ("int16_t", "d", ["2", "MAXP"])]}
    assert dim_value("MAXP + 1", constants) == 5


# -- structs ------------------------------------------------------------------------------------------------
def python_range(f: dataclasses.Field, enums: dict[str, type]) -> tuple[int, int]:
    """The values a parameter or card field takes, as the core gets them."""
    kind = f.type if isinstance(f.type, str) else f.type.__name__
    if f.metadata.get("choices") is not None:       # a choice: its index
        return 0, len(f.metadata["choices"]) - 1
    if kind == "bool":
        return 0, 1
    if kind == "int":
        lo, hi = f.metadata.get("min"), f.metadata.get("max")
        return (-2**31 if lo is None else lo), (2**31 - 1 if hi is None else hi)
    assert kind in enums, f"{f.name}: a {kind} cannot be passed to the core as a number"
    values = [int(m) for m in enums[kind]]
    return min(values), max(values)


def test_structs_have_the_python_fields_in_order_with_wide_enough_types(game):
    name, _, decl, structs, constants = game
    enums = {v.__name__: v for v in decl["enums"].values() if isinstance(v, type) and issubclass(v, enum.IntEnum)}
    for struct, source in decl["structs"].items():
        assert struct in structs, f"{decl['pxd']} has no struct {struct}"
        c_fields = structs[struct]
        assert [f for _, f, _ in c_fields] == [s.name for s in source], \
            f"{decl['pxd']} {struct}: fields differ from the Python declaration (names or order)"
        for (ctype, field, dims), src in zip(c_fields, source):
            if isinstance(src, Column):
                continue  # the record: test_game_record_struct_is_the_declared_record
            assert not dims and ctype in C_RANGE, f"{struct}.{field}: {ctype}{dims} is not a plain number"
            lo, hi = python_range(src, enums)
            c_lo, c_hi = C_RANGE[ctype]
            assert c_lo <= lo and hi <= c_hi, f"{struct}.{field}: {ctype} cannot hold {lo}..{hi}"


def test_game_record_struct_is_the_declared_record(game):
    name, _, decl, structs, constants = game
    dtype = decl["record_dtype"]
    c_fields = structs["GameRecord"]
    assert [f for _, f, _ in c_fields] == list(dtype.names)
    for ctype, field, dims in c_fields:
        sub, _ = dtype.fields[field][:2]
        storage = sub.base.name if sub.shape else sub.name
        assert ctype == C_OF_STORAGE[storage], f"GameRecord.{field}: {ctype}, declared {storage}"
        assert [dim_value(d, constants) for d in dims] == list(sub.shape), \
            f"GameRecord.{field}: dimensions {dims}, declared {sub.shape}"


def test_compiled_game_record_has_the_size_of_the_declared_dtype(game):
    _, _, decl, _, _ = game
    module = importlib.import_module(decl["module"])
    assert module.RECORD_SIZE == decl["record_dtype"].itemsize
    assert decl["record_dtype"].isalignedstruct


def test_the_module_reads_its_rule_and_weight_fields_off_the_structs(game):
    _, _, decl, structs, _ = game
    module = importlib.import_module(decl["module"])
    assert module.RULE_FIELDS == tuple(f for _, f, _ in structs["Rules"])
    assert module.WEIGHT_FIELDS == tuple(f for _, f, _ in structs["Weights"])


# -- enumerations and constants ---------------------------------------------------------------------------
def expected_constants(prefix: str, twin) -> dict[str, int]:
    if isinstance(twin, type) and issubclass(twin, enum.IntEnum):
        return {prefix + m.name: int(m) for m in twin}
    return {prefix + str(v).upper().replace("-", "_"): i for i, v in enumerate(twin)}


def test_enums_are_their_python_twins(game):
    _, _, decl, _, constants = game
    prefixes = sorted(decl["enums"], key=len, reverse=True)
    for prefix, twin in decl["enums"].items():
        # a constant belongs to the longest prefix it starts with (BOT_ is not B_'s)
        have = {k: v for k, v in constants.items() if next((p for p in prefixes if k.startswith(p)), None) == prefix}
        assert have == expected_constants(prefix, twin), f"{decl['pxd']}: the {prefix}* enum differs from {twin!r}"
    for name, value in decl["constants"].items():
        assert constants.get(name) == value, f"{decl['pxd']}: {name} = {constants.get(name)}, Python says {value}"


def test_a_changed_enum_is_caught():
    class Tile(enum.IntEnum):
        EMPTY = 0
        DESERT = 1
    assert expected_constants("T_", Tile) == {"T_EMPTY": 0, "T_DESERT": 1}
    assert expected_constants("R_", ("vp", "last_alive")) == {"R_VP": 0, "R_LAST_ALIVE": 1}
    _, constants = parse_pxd(ROOT / GAMES["paws"].DECLARATIONS["pxd"])
    assert {k: v for k, v in constants.items() if k.startswith("T_")} != expected_constants("T_", Tile)


# -- the core refuses what it has no field for ------------------------------------------------------------
SETUPS = {"paws": {}, "tales": {"mode": "standard"}}


def _inputs(name):
    m = get(name).resolve(None, {}, SETUPS[name])
    mod = GAMES[name]
    return m, mod, mod.core_inputs(m.setup, m.rules, m.data)


def _play(name, inputs):
    module = importlib.import_module(GAMES[name].DECLARATIONS["module"])
    return module.play_batch(inputs, BatchOptions(1, 0, 2))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_core_refuses_a_rule_parameter_it_has_no_field_for(name):
    _, _, inputs = _inputs(name)
    assert _play(name, inputs)["void"] == -1
    with pytest.raises(ValueError, match="the core has no rule parameter.s. reshuffle: its struct has only "):
        _play(name, {**inputs, "rules": {**inputs["rules"], "reshuffle": 1}})


@pytest.mark.parametrize("name", sorted(GAMES))
def test_core_refuses_a_bot_weight_it_has_no_field_for(name):
    _, _, inputs = _inputs(name)
    kind, weights = inputs["bots"][0]
    assert weights, "the first seat plays the heuristic bot"
    bots = [(kind, {**weights, "greed": 3})] + inputs["bots"][1:]
    with pytest.raises(ValueError, match="the core has no bot weight.s. greed"):
        _play(name, {**inputs, "bots": bots})


@pytest.mark.parametrize("name", sorted(GAMES))
def test_core_inputs_refuse_a_new_rule_parameter_with_a_hint(name):
    m, mod, _ = _inputs(name)
    newer = dataclasses.make_dataclass("Newer", [("reshuffle", int, param(1, "a rule the core lacks"))],
                                       bases=(type(m.rules),), frozen=True)
    with pytest.raises(mod.CoreError, match="does not know the rule parameter.s. reshuffle; use --engine reference"):
        mod.core_inputs(m.setup, newer(), m.data)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_core_refuses_a_record_dtype_not_laid_out_like_game_record(name):
    _, mod, inputs = _inputs(name)
    dtype = mod.DECLARATIONS["record_dtype"]
    packed = np.dtype([(n, dtype.fields[n][0]) for n in dtype.names])  # the same fields, not aligned
    with pytest.raises(ValueError, match="the record declaration and the .pxd differ"):
        _play(name, {**inputs, "record_dtype": packed})


def test_the_batch_options_struct_is_the_python_request():
    """The core fills its BatchOptions struct once from options of the same names (core/kit/types.pxd; ``values`` is
    whether ``oracle_weights`` is given): sim.games.BatchOptions is its twin, and a request's options
    (sim.kit.batch.core_options) play the same games as the same options given directly."""
    from sim.kit.batch import core_options
    structs, _ = parse_pxd(ROOT / "core/kit/types.pxd")
    c_fields = [name for _, name, _ in structs["BatchOptions"]]
    py_fields = [f.name for f in dataclasses.fields(BatchOptions)]
    assert c_fields == [*py_fields[:-1], "values"] and py_fields[-1] == "oracle_weights"
    m = get("paws").resolve(None, {}, {}, tables=("games", "cards"))
    options = core_options(BatchRequest(m, 9, 4, 3))
    assert options == BatchOptions(9, 4, 3, cards=True)
    seam = GAMES["paws"]
    module = importlib.import_module(seam.DECLARATIONS["module"])
    inputs = seam.core_inputs(m.setup, m.rules, m.data)
    by_request, direct = module.play_batch(inputs, options), module.play_batch(inputs, BatchOptions(9, 4, 3, True))
    assert by_request["records"].tobytes() == direct["records"].tobytes() and len(direct["records"]) == 3
    assert by_request["cards"].tobytes() == direct["cards"].tobytes() and len(direct["cards"]) > 0
    alone = module.play_batch(inputs, BatchOptions(9, 6, 1))        # game 6 alone: the batch's third record
    assert alone["records"].tobytes() == direct["records"][2:].tobytes() and "cards" not in alone
