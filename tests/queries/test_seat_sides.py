"""Each game's seats.sql: the cheap ``seat_sides`` (constant slices) and ``sides`` (a plain number) equal the
list comprehension and ``len(list_distinct(seat_sides))`` they replace, for every mode and player count,
including counts no rule set allows (the slow form is the fallback there)."""

import duckdb
import pytest

from cluster.spec import parse_spec
from queries import connection, sqlfiles
from sim.games import GAMES

# the seat sides as every game's seats.sql computed them before (seat % 2 in a team mode, else the seat)
TEAM_SIDES = "[s % 2 FOR s IN range(players::BIGINT)]"
OWN_SIDES = "range(players::BIGINT)"


@pytest.mark.parametrize("game", GAMES.names())
def test_sides_and_seat_sides_equal_the_slow_forms_for_every_player_count(game):
    record = parse_spec({"name": "s", "game": game, "seed": 1, "games_per_cell": 2},
                        source="s.toml").cells[0].match.play_batch(1, 0, 2)["games"]
    con = duckdb.connect()
    con.register("sample", record)
    modes = [m for (m,) in con.execute("SELECT DISTINCT mode FROM sample").fetchall()] \
        if "mode" in record.column_names else []
    modes = sorted(set(modes) | {"teams", "ffa", "2v2", "standard", "survive", "survive-2v2"})
    replace = "REPLACE (p::TINYINT AS players" + (", m AS mode)" if "mode" in record.column_names else ")")
    con.execute(f"CREATE TABLE games AS SELECT * {replace} FROM (SELECT * FROM sample LIMIT 1) "
                f"CROSS JOIN range(-2, 9) t(p) CROSS JOIN (SELECT unnest($modes) AS m)", {"modes": modes})
    view = connection.GAMES[game].sql_dir / sqlfiles.SEATS_SQL
    body = "\n".join(line for line in view.read_text().splitlines() if not line.lstrip().startswith("--"))
    con.execute(f"CREATE VIEW seat_outcomes AS {body.strip().rstrip(';')}")
    rows = con.execute("SELECT players, seat_sides, sides, len(list_distinct(seat_sides)), typeof(seat_sides), "
                       "typeof(sides) FROM seat_outcomes").fetchall()
    assert len(rows) == 11 * len(modes)
    for players, seat_sides, sides, distinct, t_list, t_sides in rows:
        assert sides == distinct and (t_list, t_sides) == ("BIGINT[]", "BIGINT"), (players, seat_sides)
    # seat_sides equals one of the two slow forms, row by row, whatever the mode
    slow = con.execute(f"SELECT count(*) FROM seat_outcomes WHERE seat_sides IS DISTINCT FROM {TEAM_SIDES} "
                       f"AND seat_sides IS DISTINCT FROM {OWN_SIDES}").fetchone()[0]
    assert slow == 0
