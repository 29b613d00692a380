"""Balance metrics of a run, per cell, as counts: one SQL file per metric family under ``sql/<game>/``.

A family's SQL runs through the query library (:mod:`queries.library`) over the run's results and
returns one row per (cell, key) in one of three shapes, named by its ``-- kind:`` header line:

- ``rate``: ``cell, key, k, n`` (k of n: a win rate, the stall rate), compared by a two-proportion z-test;
- ``categorical``: ``cell, key, count`` (games per end reason), compared by a chi-square test;
- ``ordinal``: ``cell, key, count`` with a numeric key (games per length), compared by Mann-Whitney U.

Counts (not rates) are what the baseline stores, so any later run can be tested against it. A new
game gets its metrics by adding ``sql/<game>/*.sql`` keyed by its own outcome columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

SQL_DIR = Path(__file__).parent / "sql"
KINDS = ("rate", "categorical", "ordinal")


@dataclass(frozen=True)
class Family:
    """One metric family: its name, kind, one-line meaning and SQL file."""

    name: str
    kind: str
    question: str
    path: Path
    unit: str = ""            # ordinal only: what the key counts (rounds)


def _header(path: Path) -> dict[str, str]:
    out: dict[str, str] = {"question": ""}
    for line in path.read_text().splitlines():
        if not line.startswith("--"):
            break
        key, sep, rest = line[2:].strip().partition(":")
        if sep and key in ("name", "kind", "unit", "game", "columns"):
            out[key] = rest.strip()
        else:
            out["question"] = (out["question"] + " " + line[2:].strip()).strip()
    return out


def families(game: str) -> list[Family]:
    """The metric families of ``game`` (empty when the game has none yet)."""
    out = []
    for path in sorted((SQL_DIR / game).glob("*.sql")):
        head = _header(path)
        kind = head.get("kind", "")
        if kind not in KINDS:
            raise ValueError(f"{path}: kind {kind!r} is not allowed; expected one of {', '.join(KINDS)}")
        out.append(Family(head.get("name", path.stem), kind, head["question"], path, head.get("unit", "")))
    return out


def compute(game: str, results: Sequence[str | Path]) -> dict[str, dict[str, dict]]:
    """{cell id: {family: {key: [k, n]} (rate) or {key: count}}} over every result directory given.

    Counts from several directories (one per seed) of the same cells add up.
    """
    from queries.library import connect, execute
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
