"""The record digest: the same games give the same digest however they were split, any changed value changes it."""

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from sim.games import get
from regress.digest import parts_digest, table_digest


@pytest.fixture(scope="module")
def games():
    m = get("paws").resolve(rules="v4", setup={"players": 3})
    return m.play_batch(5, 0, 300)["games"], m.schemas["games"]


def test_digest_ignores_parts_order_and_chunks(games, tmp_path):
    table, schema = games
    whole = table_digest(table, schema)
    # the same games played in other ranges (game k depends only on seed and k)
    m = get("paws").resolve(rules="v4", setup={"players": 3})
    pieces = [m.play_batch(5, lo, n)["games"] for lo, n in ((200, 100), (0, 120), (120, 80))]
    assert table_digest(pa.concat_tables(pieces), schema) == whole
    for i, t in enumerate(pieces):
        pq.write_table(t, tmp_path / f"part-{i:05d}.parquet")
    assert parts_digest(tmp_path.glob("part-*.parquet"), schema) == (whole, 300)
    assert len(whole) == 64


def test_any_changed_value_changes_the_digest(games):
    table, schema = games
    whole = table_digest(table, schema)
    rounds = table.column("rounds").to_pylist()
    rounds[137] += 1
    bumped = table.set_column(table.schema.get_field_index("rounds"), "rounds", pa.array(rounds, pa.int16()))
    assert table_digest(bumped, schema) != whole
    vp = table.column("vp").to_pylist()
    vp[3] = list(reversed(vp[3])) if vp[3] != list(reversed(vp[3])) else [v + 1 for v in vp[3]]
    swapped = table.set_column(table.schema.get_field_index("vp"), "vp", pa.array(vp, schema.field("vp").type))
    assert table_digest(swapped, schema) != whole
    assert table_digest(table.slice(0, 299), schema) != whole
    ends = table.column("end_reason").to_pylist()
    ends[10] = "stalled" if ends[10] != "stalled" else "vp"
    assert table_digest(table.set_column(table.schema.get_field_index("end_reason"), "end_reason",
                                         pa.array(ends, pa.string())), schema) != whole
    bots = table.column("bots").to_pylist()
    bots[0] = ["random"] + bots[0][1:]
    assert table_digest(table.set_column(table.schema.get_field_index("bots"), "bots",
                                         pa.array(bots, schema.field("bots").type)), schema) != whole
    heal = pc.add(table.column("desert_heal"), 1).cast(pa.int32())
    assert table_digest(table.set_column(table.schema.get_field_index("desert_heal"), "desert_heal", heal),
                        schema) != whole


def test_digest_needs_every_record_column(games):
    table, schema = games
    with pytest.raises(ValueError, match="lack columns winner_seat"):
        table_digest(table.drop_columns(["winner_seat"]), schema)


def test_an_engine_option_at_its_default_leaves_the_digest_as_before_it_existed(games):
    """The digest of games played with dice_stream at its default equals the digest of the same games
    without the column (as written before the option existed); away from the default the column counts."""
    from sim.params import option_defaults
    table, schema = games
    options = option_defaults(get("paws").rule_presets["v4"])
    assert options == {"dice_stream": "classic"}
    before = pa.schema([f for f in schema if f.name != "dice_stream"])
    now = table_digest(table, schema, options)
    assert now == table_digest(table.drop_columns(["dice_stream"]), before)
    assert now != table_digest(table, schema)                  # without the option list the column counts
    marked = table.set_column(table.schema.get_field_index("dice_stream"), "dice_stream",
                              pa.array(["table"] + ["classic"] * (table.num_rows - 1), pa.string()))
    assert table_digest(marked, schema, options) not in (now, table_digest(table.drop_columns(["dice_stream"]), before))
    table_games = get("paws").resolve(rules="v4", overrides={"dice_stream": "table"}, setup={"players": 3})
    other = table_games.play_batch(5, 0, 300)["games"]
    assert table_digest(other, schema, options) == table_digest(other, schema)


def test_record_columns_leave_out_engine_options(games):
    from regress.digest import record_columns
    from sim.params import option_defaults
    _, schema = games
    options = option_defaults(get("paws").rule_presets["v4"])
    assert "dice_stream" in record_columns(schema) and "dice_stream" not in record_columns(schema, options)
    assert len(record_columns(schema, options)) == len(schema) - 1
