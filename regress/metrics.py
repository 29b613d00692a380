"""Balance metrics of a run, per cell, as counts: one SQL file per metric family, in the game's package
(``sql/regress/*.sql`` beside its :class:`sim.games.Game`).

A family's SQL runs through the query library (:mod:`queries.connection`) over the run's results and
returns one row per (cell, key) in one of three shapes, named by its ``-- kind:`` header line:

- ``rate``: ``cell, key, k, n`` (k of n: a win rate, the stall rate), compared by a two-proportion z-test;
- ``categorical``: ``cell, key, count`` (games per end reason), compared by a chi-square test;
- ``ordinal``: ``cell, key, count`` with a numeric key (games per length), compared by Mann-Whitney U.

Counts (not rates) are what the baseline stores, so any later run can be tested against it. A new
game gets its metrics by adding such files keyed by its own outcome columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from queries.connection import connect, execute
from queries.errors import QueryError
from queries.sqlfiles import sql_header
from sim.files import read_text_bounded
from sim.games import GAMES

KINDS = ("rate", "categorical", "ordinal")


@dataclass(frozen=True)
class Family:
    """One metric family: its name, kind, one-line meaning and SQL file."""

    name: str
    kind: str
    question: str
    path: Path
    unit: str = ""            # ordinal only: what the key counts (rounds)


def families(game: str) -> list[Family]:
    """The metric families of ``game`` (empty when the game has none yet): its ``sql/regress/*.sql``."""
    out = []
    for path in GAMES[game].metric_files():
        head = sql_header(read_text_bounded(path, "SQL file", QueryError))
        kind = head.values.get("kind", "")
        if kind not in KINDS:
            raise ValueError(f"{path}: kind {kind!r} is not allowed; expected one of {', '.join(KINDS)}")
        out.append(Family(head.values.get("name", path.stem), kind, head.question, path, head.values.get("unit", "")))
    return out


def compute(game: str, results: Sequence[str | Path]) -> dict[str, dict[str, dict]]:
    """{cell id: {family: {key: [k, n]} (rate) or {key: count}}} over every result directory given.

    Counts from several directories (one per seed) of the same cells add up.
    """
    fams = families(game)
    out: dict[str, dict[str, dict]] = {}
    con = connect([str(r) for r in results])
    try:
        for fam in fams:
            cols, rows = execute(con, fam.path.read_text(), where=f"metric {fam.name} ({fam.path.name})")
            for row in rows:
                rec = dict(zip(cols, row))
                per = out.setdefault(str(rec["cell"]), {}).setdefault(fam.name, {})
                key = str(rec["key"])
                if fam.kind == "rate":
                    k, n = per.get(key, [0, 0])
                    per[key] = [k + int(rec["k"]), n + int(rec["n"])]
                else:
                    per[key] = per.get(key, 0) + int(rec["count"])
    finally:
        con.close()
    return out
