"""``playtest report``: one self-contained HTML page for a sweep's results folder or a ``playtest run`` file.

The page opens with a summary in plain words (what varied, how many games, which bots played them: bots,
not people; the headline of each question per cell, with its 95% interval), then, per cell side by side
(small multiples on shared axes): each side's and the first player's win share against the fair share,
game lengths, end reasons, the median standing per round with its 25-75% band (where the record keeps a
per-round standings trace), the designer metrics (the canned queries ``balance``, ``first_player_advantage``,
``draw_share``, ``lead_changes``, ``length_target``, ``idle_turns``) and per-card statistics where the
results have a ``cards`` table. Every number is one cell's; nothing is pooled across cells.

Everything runs on the query library's locked connection; values are bound as parameters, and every text
from the results (cell values, bot specs, card names, file names) is escaped on the page. Plots are inline
PNGs (queries/pages.py): the page needs no other file and no network.
"""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import duckdb

from queries import connection, errors, sources, sqlfiles
from infra.stop_text import stop_line  # noqa: F401 - the report's and the sweep's one line per stopped cell
from infra import stats
from queries.first_player import edge_verdict, edge_words
from queries.connection import execute
from queries.errors import QueryError, ResultsError
from queries.pages import BASE, CSS, CUR, SCRIPT, esc, html_table, png_base64
from queries.variants import variant_columns
from infra import folder
from sim.games import GAMES
from infra.storage import StorageError, is_uri, open_location, shown

METRICS = ("first_player_advantage", "balance", "draw_share", "lead_changes", "length_target", "idle_turns")
MAX_CELLS = 64               # cells on one page; a larger sweep is refused: narrow it first
MAX_CARDS = 40               # cards listed per cell (the most present first)
PANEL_COLUMNS = 4            # small multiples per row
SIDE_COLOURS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666")
FIRST = "#333333"


class ReportError(ValueError):
    """Results the report cannot be built from; the message names the path and what is wrong."""


@dataclass
class Cell:
    """One cell's numbers, every one of them this cell's alone."""

    id: str                                   # the sweep's cell id ("" for a single file)
    label: str                                # its varying values in words ("all games" when none vary)
    games: int = 0
    unit: str = "seat"                        # what competes: seat or team
    sides: int = 0
    side_wins: list[int] = field(default_factory=list)
    first_wins: int = 0
    no_winner: int = 0
    bots: list[str] = field(default_factory=list)          # each distinct line-up, in words
    lengths: dict[int, int] = field(default_factory=dict)  # rounds -> games
    ends: list[tuple[str, int]] = field(default_factory=list)
    band: list[tuple[int, int, int, float, float, float]] = field(default_factory=list)  # round, seat, games, q25, q50, q75
    metrics: dict[str, list[dict]] = field(default_factory=dict)
    cards: list[dict] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)   # its value of each column that varies
    stop: dict | None = None                  # a [stop] sweep's cell: why and where it stopped (the manifest's)
    measures: dict[str, dict] = field(default_factory=dict)  # each per-cell measure's answer (PerCell), by name


@dataclass
class Report:
    """What the page shows, and how long it took to build."""

    source: str
    kind: str                                 # "sweep" or "file"
    name: str
    game: str
    title: str
    cells: list[Cell]
    varying: list[str]
    fixed: dict[str, str]
    has_standings: bool
    has_idle: bool
    cards_note: str | None                    # why there are no per-card statistics (None: there are)
    params: dict[str, Any]
    seconds: float = 0.0
    command: str = ""
    ladder: dict | None = None                # a ladder's folder: ratings, fit, win matrix (from its games)
    tune: dict | None = None                  # a tune's folder: its answer (tune.json, shape-checked)
    spec: dict = field(default_factory=dict)  # the sweep's spec as its manifest keeps it (empty for a file)
    sections: list[str] = field(default_factory=list)   # the measures' sections (measures/answers.py), HTML
    per_cell: tuple = ()                      # the per-cell measures these results hold (PerCell)

    @property
    def games(self) -> int:
        return sum(c.games for c in self.cells)


@dataclass(frozen=True)
class PerCell:
    """A measure the report reads cell by cell from a table of the results, handed in by the layer above
    (measures/answers.py: tension's, from the win_prob table): a cell's answer, its line and its page section."""

    name: str                                  # its key in Cell.measures
    table: str                                 # the table it reads: results without it have no such measure
    read: Callable[[Any, Any], dict]           # (the connection, its ``games`` view the cell's, cell id) -> answer
    line: Callable[[dict], str | None]         # a cell's line under the cell's in the text summary (None: none)
    section: Callable[[Report], str]           # its section of the page, after the designer metrics


# ---------------------------------------------------------------------------------------------------
# Reading the results
# ---------------------------------------------------------------------------------------------------

TARGET = re.compile(r"([0-9]{1,6})-([0-9]{1,6})")
MAX_BEHIND_AFTER = 100000


def parse_target(text: str) -> tuple[int, int]:
    """``--target SHORTEST-LONGEST`` (rounds) as two integers; a ValueError of one line otherwise."""
    m = TARGET.fullmatch(text.strip())
    if not m or not 1 <= int(m[1]) <= int(m[2]):
        raise ValueError(f"--target {text!r}: expected SHORTEST-LONGEST in rounds, 1 <= SHORTEST <= LONGEST, "
                         "e.g. 5-15")
    return int(m[1]), int(m[2])


def check_source(source: str) -> str:
    """``source`` as the kind of results it is ("sweep" or "file"); a ReportError of one line otherwise."""
    if is_uri(source):             # a sweep's folder on object storage (read in place through its manifest)
        try:
            if not open_location(source).exists(sources.MANIFEST):
                raise ReportError(f"{shown(source)}: no {sources.MANIFEST} here, so this is not a sweep's results "
                                  "folder")
        except StorageError as e:
            raise ReportError(str(e)) from None
        return "sweep"
    path = Path(source)
    if any(ch in source for ch in "*?[") and not os.path.lexists(source):     # a folder "a[1]" is a folder
        raise ReportError(f"{source}: give one sweep results folder or one Parquet file, not a pattern")
    if path.is_dir():
        if os.path.lexists(path / sources.MANIFEST):      # whatever it is: the one reader says what is wrong
            try:
                folder.read_manifest(path)
            except folder.FolderError as e:
                raise ReportError(str(e)) from None
        if not os.path.lexists(path / sources.MANIFEST):
            has_parts = any(path.glob("*/cell=*/*.parquet"))
            raise ReportError(f"{source}: no {sources.MANIFEST} here, so this is not a sweep's results folder"
                              + (" (its parts are here: the manifest is missing; playtest sweep SPEC --out "
                                 f"{source} --resume rebuilds it)" if has_parts else
                                 " (expected the --out folder of playtest sweep, or a playtest run Parquet file)"))
        return "sweep"
    if path.is_file():
        try:
            with open(path, "rb") as f:
                head = f.read(4)
        except OSError as e:
            raise ReportError(f"{source}: cannot read it ({e.strerror or e})") from None
        if head != b"PAR1":
            raise ReportError(f"{source}: not a Parquet file (expected a playtest run --out file or a sweep's "
                              "results folder)")
        return "file"
    raise ReportError(f"{source}: no such results folder or Parquet file")


def _rows(con, sql: str, params: dict | None, source: str) -> list[dict]:
    cols, rows = execute(con, sql, params, where=f"report over {source}", results=[source])
    return [dict(zip(cols, r)) for r in rows]


def _words(v: Any) -> str:
    if isinstance(v, list):
        return ", ".join(map(str, v))
    return str(v)


def _lineup(bots: list[str]) -> str:
    """A bot line-up in words: one spec in every seat, or each seat's."""
    if not bots:
        return "unknown bots"
    if len(set(bots)) == 1:
        return f"{bots[0]} in every seat"
    return ", ".join(f"seat {i} {b}" for i, b in enumerate(bots))


def read(source: str, *, shortest: int = 5, longest: int = 15, behind_after: int = 3, brief: bool = False,
         cards: str | None = None, per_cell: Sequence[PerCell] = ()) -> Report:
    """Every number the page shows, per cell, from one sweep folder or ``playtest run`` file; ``brief``: only
    what the text summary needs (games, who won, the first player's share, end reasons). ``cards``: the
    per-card file ``playtest run --cards-out`` wrote beside a run file. ``per_cell``: the measures read per
    cell where the results hold their table (not in a brief read)."""
    t0 = time.perf_counter()
    kind = check_source(source)
    if cards is not None and kind != "file":
        raise ReportError(f"--cards {cards}: a sweep keeps its cards table in its own folder; --cards goes with "
                          "a playtest run file")
    manifest = sources.read_manifest(source) if kind == "sweep" else None
    if brief:
        held = _games_held(source, manifest)
        if held > BRIEF_MAX_GAMES:
            raise ReportError(f"{held:,} games, more than the {BRIEF_MAX_GAMES:,} a closing summary reads into "
                              f"memory; ask a question instead: playtest query first_player_advantage "
                              f"--results {source}")
    con = connection.connect([source])
    try:
        if cards is not None:
            _card_file(con, source, cards)
        return _read(con, source, kind, manifest, shortest, longest, behind_after, t0, brief, tuple(per_cell))
    finally:
        con.close()


def _varying(columns: list[str], values: list[dict], cell_ids: list) -> tuple[dict, list[str], dict[str, str]]:
    """Per cell, each column's values in words; the columns that vary from cell to cell; and what every cell
    shares. A column varies when it tells cells apart that the columns before it do not (bots that follow
    players are not a second thing that varied)."""
    per_cell: dict[Any, dict[str, list[str]]] = {c: {} for c in cell_ids}
    for col in columns:
        for v in dict.fromkeys((r["cell"], _words(r[col])) for r in values):
            per_cell[v[0]].setdefault(col, []).append(v[1])

    def key(i, cols):
        return tuple(tuple(sorted(per_cell[i].get(x, []))) for x in cols)

    varying: list[str] = []
    for c in columns:
        if len({key(i, varying + [c]) for i in cell_ids}) > len({key(i, varying) for i in cell_ids}) \
                or any(len(per_cell[i].get(c, [])) > 1 for i in cell_ids):
            varying.append(c)
    follow = [c for c in columns if c not in varying and len({key(i, [c]) for i in cell_ids}) > 1]
    fixed = {c: per_cell[cell_ids[0]].get(c, [""])[0] for c in columns if c not in varying and c not in follow}
    return per_cell, varying, fixed


def _cards_note(game, has_cards: bool) -> str | None:
    """Why the report has no per-card statistics (None when it has them)."""
    if has_cards:
        return None
    if "cards" in game.schemas:
        return ("these results have no cards table, so no per-card statistics (a sweep keeps one with "
                "tables = [\"games\", \"cards\"]; playtest run --cards-out FILE writes one, and "
                "playtest report RUN --cards FILE reads it)")
    return f"per-card statistics are not built for {game.title} yet: its records have no cards table"


def _read(con, source, kind, manifest, shortest, longest, behind_after, t0, brief, measures) -> Report:
    # what varies from cell to cell: one pass over the files, before the copy
    try:
        columns = [c for c in variant_columns(con, [source]) if c not in ("game", "data_digest")]
        present = [r[0] for r in con.execute("DESCRIBE games_all").fetchall()]
        if "bots" not in columns and "bots" in present:
            columns.append("bots")
        values = _rows(con, f"SELECT DISTINCT cell, {', '.join(connection._ident(c) for c in columns)} "
                            "FROM games_all", None, source) if columns else []
    except QueryError as e:
        _damaged(e, "games", source, manifest)
    # one copy in memory: every cell's questions then read it, not the files, again. The rule parameters
    # (a column each, the same in every game of a cell) are left out but for the few the designer metrics
    # group by: they are most of a record's width (1.7 GB against 0.4 GB for 250,000 Paws games)
    _copy(con, "games", source, manifest, [c for c in present if c in KEEP or c not in columns])
    games = [r["game"] for r in _rows(con, "SELECT DISTINCT game FROM report_games ORDER BY 1", None, source)]
    if not games:
        raise ReportError(f"{source}: holds no games")
    unknown = [g for g in games if g not in GAMES.names()]
    if unknown or len(games) > 1:
        raise ReportError(f"{source}: holds {', '.join(map(str, games))} records; a report reads one registered "
                          f"game ({', '.join(GAMES.names())})")
    game = GAMES[games[0]]
    con.execute("CREATE OR REPLACE VIEW games AS SELECT * FROM report_games")   # all cells, then one at a time
    cell_ids = [r["cell"] for r in _rows(con, "SELECT cell, count(*) AS n FROM report_games GROUP BY cell "
                                             "ORDER BY cell NULLS FIRST", None, source)]
    if len(cell_ids) > MAX_CELLS:
        raise ReportError(f"{source}: {len(cell_ids)} cells; a report shows at most {MAX_CELLS} side by side")
    per_cell, varying, fixed = _varying(columns, values, cell_ids)
    connection.add_seat_outcomes(con, [source])
    outcome_cols = {r[0] for r in con.execute("DESCRIBE seat_outcomes").fetchall()}
    has_standings = "standings" in outcome_cols
    has_idle = "idle_turns" in outcome_cols
    tables = set((manifest or {}).get("tables", ["games"]))
    has_cards = "cards" in tables and _has_view(con, "cards") or _has_table(con, "report_cards")
    if has_cards and not _has_table(con, "report_cards"):
        _copy(con, "cards", source, manifest)
    cards_note = _cards_note(game, has_cards)
    readers = tuple(m for m in measures if m.table in tables and _has_view(con, m.table)) if not brief else ()
    params = {"shortest": shortest, "longest": longest, "behind_after": behind_after}
    stops = {c.get("id"): c["stop"] for c in (manifest or {}).get("cells", []) if isinstance(c.get("stop"), dict)}
    cells = []
    unit_sql = game.compare_columns.unit
    for cid in cell_ids:
        # the cell's games alone, so that each of its questions scans them and no other cell's
        con.execute("CREATE OR REPLACE TEMP TABLE report_cell_games AS SELECT * FROM report_games "
                    "WHERE cell IS NOT DISTINCT FROM $c", {"c": cid})
        con.execute("CREATE OR REPLACE VIEW games AS SELECT * FROM report_cell_games")
        label = ", ".join(f"{c}={'/'.join(per_cell[cid].get(c, []))}" for c in varying) or "all games"
        cell = Cell(id=cid or "", label=label, values={c: "/".join(per_cell[cid].get(c, [])) for c in varying},
                    stop=stops.get(cid))
        _outcomes(con, source, cell, unit_sql)
        cell.lengths = {int(r["rounds"]): int(r["n"]) for r in _rows(
            con, "SELECT rounds, count(*) AS n FROM games GROUP BY ALL ORDER BY ALL", None, source)}
        cell.ends = [(str(r["end_reason"]), int(r["n"])) for r in _rows(
            con, "SELECT end_reason, count(*) AS n FROM games GROUP BY ALL ORDER BY n DESC, end_reason", None,
            source)]
        if has_standings and not brief:
            cell.band = _band(con, source, cell)
        for name in METRICS:
            if name == "lead_changes" and not has_standings or name == "idle_turns" and not has_idle \
                    or brief and name != "first_player_advantage":
                continue
            q = sqlfiles.load(name)
            values = sqlfiles.bind(q, {k: v for k, v in params.items() if k in q.params})
            cols, rows = connection.answer(con, q, values, [source])
            cell.metrics[name] = [dict(zip(cols, r)) for r in rows]
        if has_cards and not brief:
            cell.cards = _cards(con, source, cid)
        for m in readers:
            try:
                cell.measures[m.name] = m.read(con, cid)
            except duckdb.Error as e:
                _damaged(QueryError(errors.one_line(e)), m.table, source, manifest)
        cells.append(cell)
    name = str((manifest or {}).get("name") or Path(source).name)
    con.execute("CREATE OR REPLACE VIEW games AS SELECT * FROM report_games")
    ladder = _ladder(con, source) if kind == "sweep" and _beside(source, "ladder.json") else None
    tune = _tune(source) if kind == "sweep" else None
    report = Report(source, kind, name, game.name, game.title, cells, varying, fixed, has_standings, has_idle,
                    cards_note, params, time.perf_counter() - t0)
    report.ladder, report.tune, report.per_cell = ladder, tune, readers
    spec = (manifest or {}).get("spec")
    report.spec = spec if isinstance(spec, dict) else {}
    return report


def _beside(source: str, name: str) -> Path | None:
    """The file ``name`` a ladder or tune writes into its own results folder (local folders only), if it is there."""
    if is_uri(source):
        return None
    path = Path(source) / name
    return path if os.path.lexists(path) else None


def _ladder(con, source: str) -> dict:
    """A ladder's answer worked out from its games (not from ladder.json, which anyone could edit): each bot's
    rating with its interval and win chance against the anchor, the fit check (ratings.fit_of) and the win matrix."""
    from queries import ratings
    meetings = ratings.read_meetings(con, [source])
    bots = sorted({m["bot"] for m in meetings}, key=lambda b: (b != "random", b))
    if len(bots) < 2:
        return {"note": "fewer than two bots met in these games: nothing to rate"}
    seats = _rows(con, "SELECT max(len(bots)) AS n FROM games", None, source)[0]["n"]
    anchor = ratings.anchor_of(bots)
    try:
        outcomes = ratings.read_outcomes(con, [source]) if seats > 2 else None
        rated = ratings.ratings(bots, meetings, anchor, games=ratings.games_played(con, [source]),
                                outcomes=outcomes)
        fit = ratings.fit_of(bots, meetings, seats, outcomes, anchor)
    except ratings.RatingError as e:
        return {"note": str(e)}
    from queries import intransitive
    return {"ratings": rated, "anchor": anchor, "fit": fit, "lines": ratings.rating_lines(rated, anchor),
            "fit_line": fit["says"], "matrix": ratings.win_matrix(bots, meetings), "bots": bots,
            "field": intransitive.analyse(bots, meetings, seats=seats)}


TUNE_BYTES = 64 * 2**20


def _tune(source: str) -> dict | None:
    """A tune's answer (tune.json in its folder, read by the bounded reader and shape-checked: a field of the
    wrong shape is left out, never trusted); None when there is none or it is not a tune's answer."""
    path = _beside(source, "tune.json")
    if path is None:
        return None
    try:
        raw = folder.parse_json(folder.read_file(path, source, "tune answer", TUNE_BYTES), str(path), "tune answer")
    except folder.FolderError as e:
        return {"note": str(e)}
    if not isinstance(raw, dict) or not isinstance(raw.get("candidates"), list):
        return {"note": f"{path}: not a tune's answer"}

    def entry(e: Any) -> dict | None:
        if not isinstance(e, dict) or not isinstance(e.get("label"), str):
            return None
        hold = [h for h in (e.get("objective") or {}).get("per_hold", []) if isinstance(h, dict)]
        return {"label": e["label"], "reason": str(e.get("reason") or ""), "certified": e.get("certified") is True,
                "loss": e.get("loss") if isinstance(e.get("loss"), (int, float)) else None,
                "holds": [(str(h.get("hold")), h.get("estimate"), h.get("interval")) for h in hold
                          if isinstance(h.get("estimate"), (int, float)) and isinstance(h.get("interval"), list)
                          and len(h["interval"]) == 2 and all(isinstance(x, (int, float)) for x in h["interval"])]}
    return {"best": entry(raw.get("best")), "metric": str((raw.get("objective") or {}).get("metric", ""))
            if isinstance(raw.get("objective"), dict) else "",
            "indistinguishable": [x for x in map(entry, raw.get("indistinguishable") or []) if x],
            "candidates": [x for x in map(entry, raw["candidates"]) if x],
            "games": raw.get("games") if isinstance(raw.get("games"), int) else None}


# The closing summary of run and sweep holds the records in memory like the page (about 0.5-3 KB a game,
# the rule-parameter columns left out): above this many games it is skipped with a line saying so
BRIEF_MAX_GAMES = 5_000_000


def _games_held(source: str, manifest: dict | None) -> int:
    """The games a sweep folder (its manifest's finished parts) or a run file (its Parquet footer) holds,
    read without reading the records."""
    if manifest is not None:
        return sum(int(p.get("rows") or 0) for c in manifest.get("cells", []) for p in c.get("parts", [])
                   if p.get("state") == "done")
    import pyarrow.parquet as pq
    try:
        return pq.ParquetFile(source).metadata.num_rows
    except Exception:     # noqa: BLE001 - unreadable here: the read that follows says why
        return 0


# the variant columns the copy keeps: the designer metrics group by these (their COLUMNS(...) lists), the
# page shows the bot line-ups
KEEP = frozenset(["game", "ruleset", "board", "mode", "players", "round_limit", "team_vp_target", "bots", "cell"])


def _copy(con, table: str, source: str, manifest: dict | None, columns: list[str] | None = None) -> None:
    """``report_<table>``: the table (``columns`` of it) read once into memory. A part DuckDB cannot decode
    (its error need not name the file) is found by reading each part alone, and named with the repair
    commands."""
    view = "games_all" if table == "games" else table
    cols = ", ".join(connection._ident(c) for c in columns) if columns else "*"
    try:
        execute(con, f"CREATE TEMP TABLE report_{table} AS SELECT {cols} FROM {view}",
                where=f"report over {source}", results=[source])
    except QueryError as e:
        _damaged(e, table, source, manifest)


def _damaged(e: QueryError, table: str, source: str, manifest: dict | None) -> None:
    """Raise the clearer error for a failed read of ``table``: the parts that cannot be decoded, with the
    repair commands; ``e`` itself when every part decodes."""
    import pyarrow.parquet as pq
    if is_uri(source):            # object storage: the parts the manifest lists, read in place one by one
        data = sources.remote_sources(source).get(table)
        root, fs = open_location(source).root + "/", data.filesystem if data is not None else None
        parts = [(f, f.removeprefix(root)) for f in (data.files if data is not None else [])]
    else:
        base, fs = Path(source).resolve(), None
        parts = [(f, str(Path(f).relative_to(base)) if manifest is not None else f)
                 for f in sources.table_sources(source).get(table, ([], True))[0]]
    bad = []
    for f, rel in parts:
        try:
            pq.read_table(f, filesystem=fs)
        except Exception:     # noqa: BLE001 - any failure to decode is a damaged file
            bad.append(rel)
    if not bad:
        raise e
    if manifest is None:
        raise ResultsError(f"{source}: unreadable Parquet file ({e}); remove or replace it") from None
    raise ResultsError(sources.corrupt_message(shown(source), manifest, bad, " (cannot be decoded)")) from None


def _card_file(con, source: str, path: str) -> None:
    """``report_cards`` from a run's per-card file, read by pyarrow (the locked connection reads only the games
    file) and checked to belong to the games: the columns the statistics read, every row of a game there."""
    import pyarrow.parquet as pq
    if check_source(path) != "file":
        raise ReportError(f"--cards {path}: not a Parquet file (the file playtest run --cards-out wrote)")
    try:
        table = pq.read_table(path)
    except Exception as e:       # noqa: BLE001 - any failure to decode is a damaged or foreign file
        raise ReportError(f"--cards {path}: unreadable Parquet file ({errors.one_line(e)})") from None
    missing = [c for c in ("seed", "game_index", "card", "won") if c not in table.column_names]
    if missing:
        raise ReportError(f"--cards {path}: not a per-card table (no {', '.join(missing)} column); expected the "
                          "file playtest run --cards-out wrote")
    con.register("report_card_file", table)
    try:
        con.execute("CREATE TEMP TABLE report_cards AS SELECT *, NULL::VARCHAR AS cell FROM report_card_file")
    finally:
        con.unregister("report_card_file")
    foreign = con.execute("SELECT count(*) FROM report_cards c ANTI JOIN games_all g "
                          "ON c.seed = g.seed AND c.game_index = g.game_index").fetchone()[0]
    if foreign:
        raise ReportError(f"--cards {path}: {foreign:,} rows belong to games that are not in {source} (another "
                          "run's cards?); give the file written by the same playtest run")


def _has_table(con, name: str) -> bool:
    return bool(con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = $n", {"n": name}).fetchone()[0])


def _has_view(con, name: str) -> bool:
    return bool(con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = $n", {"n": name}).fetchone()[0])


def _outcomes(con, source: str, cell: Cell, unit_sql: str) -> None:
    """Games, who won per side, the first player's wins, games nobody won, the bot line-ups."""
    rows = _rows(con, f"SELECT sides, winning_side, "
                      f"winning_side = first_player_side AS first_won, ({unit_sql}) AS unit, bots, "
                      f"count(*) AS n FROM seat_outcomes GROUP BY ALL", None, source)
    cell.sides = max((int(r["sides"]) for r in rows), default=0)
    cell.side_wins = [0] * cell.sides
    lineups = set()
    for r in rows:
        n = int(r["n"])
        cell.games += n
        w = int(r["winning_side"]) if r["winning_side"] is not None else -1
        if 0 <= w < cell.sides:
            cell.side_wins[w] += n
        else:
            cell.no_winner += n
        cell.first_wins += n if r["first_won"] else 0
        cell.unit = str(r["unit"])
        lineups.add(tuple(r["bots"] or ()))
    cell.bots = [_lineup(list(b)) for b in sorted(lineups)]


def _band(con, source: str, cell: Cell) -> list[tuple]:
    """Per round (to the 95th percentile of the cell's game length) and seat: the games still going and the
    25%, 50% and 75% points of the seat's standing after that round."""
    last = _quantile(cell.lengths, 0.95)
    rows = _rows(con, """
        WITH per_round AS (
            SELECT unnest(standings) AS standing, generate_subscripts(standings, 1) AS round FROM seat_outcomes
        ), per_seat AS (
            SELECT round, unnest(standing) AS v, generate_subscripts(standing, 1) - 1 AS seat
            FROM per_round WHERE round <= $last
        )
        SELECT round, seat, count(*) AS n, quantile_cont(v, [0.25, 0.5, 0.75]) AS q
        FROM per_seat GROUP BY ALL ORDER BY ALL""", {"last": max(1, int(last))}, source)
    return [(int(r["round"]), int(r["seat"]), int(r["n"]), *map(float, r["q"])) for r in rows]


def _cards(con, source: str, cid: Any) -> list[dict]:
    """Per card of one cell: the seat-games it was present in, their win share (Wilson 95%), and, where the
    cards table keeps them, its survival share and kills per game (Tales), or its plays and fights per
    seat-game (Paws: items played; monster fights, invasions made and defended)."""
    cols = {r[0] for r in con.execute("DESCRIBE report_cards").fetchall()}
    if not {"card", "won"} <= cols:
        return []
    kind = "kind" if "kind" in cols else "''"
    survived = "count(*) FILTER (WHERE survived)" if "survived" in cols else "NULL"
    kills = "avg(kills)" if "kills" in cols else "NULL"
    paws = {"kind", "plays", "fights", "invaded", "defended"} <= cols      # n/a for the other kind of card
    plays = "avg(plays) FILTER (WHERE kind = 'item')" if paws else "NULL"
    fights = "avg(fights + invaded + defended) FILTER (WHERE kind = 'monster')" if paws else "NULL"
    rows = _rows(con, f"""
        SELECT {kind} AS kind, card, count(*) AS present, count(*) FILTER (WHERE won) AS wins,
               {survived} AS survived, {kills} AS kills_per_game, {plays} AS plays_per_game,
               {fights} AS fights_per_game
        FROM report_cards WHERE cell IS NOT DISTINCT FROM $cell
        GROUP BY ALL ORDER BY present DESC, kind, card LIMIT $limit""", {"cell": cid, "limit": MAX_CARDS}, source)
    for r in rows:
        r["ci95"] = stats.wilson(int(r["wins"]), int(r["present"]))
    return rows


def _quantile(hist: dict[int, int], q: float) -> int:
    n, acc = sum(hist.values()), 0
    for x in sorted(hist):
        acc += hist[x]
        if acc >= q * n:
            return x
    return max(hist, default=1)


# ---------------------------------------------------------------------------------------------------
# Words
# ---------------------------------------------------------------------------------------------------

def pct(x: float | None, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{round(100 * x, digits) + 0.0:.{digits}f}%"        # never "-0.0%" (an interval's rounding)


def interval(lo: float | None, hi: float | None) -> str:
    return "n/a" if lo is None or hi is None else f"{100 * lo:.1f} to {100 * hi:.1f}%"


def points(share: float) -> str:
    """A signed difference of shares in percentage points, one decimal: +0.7, -1.2 (never -0.0)."""
    text = f"{100 * share:+.1f}"
    return "+0.0" if text == "-0.0" else text


def first_label(cell: Cell) -> str:
    return "the first player's team" if cell.unit == "team" else "the first player"


LEADS = ("round_limit", "team_vp_target")      # a spec that varies one of these is asking about it (``lead_answer``)
NO_WINNER_ENDS = ("stalled", "draw")            # end reasons with no winner that are not the round limit


def varied(report: Report) -> list[str]:
    """The columns the report's cells differ in (each cell's ``values``), in the order first met."""
    out: list[str] = []
    for c in report.cells:
        out += [k for k in c.values if k not in out]
    return out


def lead_answer(report: Report, cell: Cell) -> str | None:
    """The answer to the question the spec asks by what it varies, for one cell, with its 95% interval (None: the
    spec varies neither, and the first player's edge leads): a round limit, the games it ends and how many of
    those are ties (games the limit ended that nobody won: no winner, less stalls and draws); a team target, how
    long games last and how many stall."""
    keys = varied(report)
    if not cell.games:
        return None
    n = cell.games
    ends = dict(cell.ends)
    if "round_limit" in keys:
        limit = cell.values.get("round_limit", "")
        k = int(ends.get("round_limit", 0))
        if str(limit) in ("0", "") and not k:
            return f"No round limit in this cell (round_limit = {limit or 0}): no game is ended by one."
        ties = min(k, max(0, int(cell.no_winner) - sum(int(ends.get(r, 0)) for r in NO_WINNER_ENDS)))
        lo, hi = stats.wilson(k, n)
        tlo, thi = stats.wilson(ties, k) if k else (None, None)
        return (f"The round limit ({limit}) ends {pct(k / n)} of games ({k:,} of {n:,}; 95%: {interval(lo, hi)}); "
                + (f"{ties:,} of those are ties, nobody winning ({pct(ties / k)}; 95%: {interval(tlo, thi)})."
                   if k else "none of them is a tie."))
    if "team_vp_target" in keys:
        total = sum(cell.lengths.values())
        mean = sum(x * v for x, v in cell.lengths.items()) / total if total else None
        stalled = int(ends.get("stalled", 0))
        lo, hi = stats.wilson(stalled, n)
        target = cell.values.get("team_vp_target", "")
        length = (f"games last {mean:.1f} rounds on average (median {_quantile(cell.lengths, 0.5)}, 95th "
                  f"percentile {_quantile(cell.lengths, 0.95)})" if mean is not None else "no game length recorded")
        return (f"With a team target of {target} VP, {length}; {pct(stalled / n)} stall ({stalled:,} of {n:,}; "
                f"95%: {interval(lo, hi)}).")
    return None


def headlines(report: Report, cell: Cell) -> list[str]:
    """The answer to each question for one cell, in words, each with its 95% interval; first the answer to the
    question the spec varies (``lead_answer``), else the first player's edge among decided games."""
    first = lead_answer(report, cell)
    out = [first] if first else []
    m = {k: (v[0] if v else None) for k, v in cell.metrics.items()}
    f = m.get("first_player_advantage")
    if f and f["first_share"] is not None:
        out.append(f"Of the games somebody won, {first_label(cell)} wins {pct(f['first_share'])} (95%: "
                   f"{interval(f['ci95_low'], f['ci95_high'])}); the fair share is {pct(f['fair_share'])}, so the "
                   f"edge is {points(f['advantage'])} points ({points(f['advantage_low'])} to "
                   f"{points(f['advantage_high'])}): "
                   f"{edge_words(edge_verdict(int(f['first_wins']), int(f['decided']), round(1 / f['fair_share'])), first_label(cell))}.")
    elif f:
        out.append("Nobody won any of these games: there is no first-player edge to measure.")
    b = m.get("balance")
    if b:
        word = "Player" if cell.unit == "seat" else cell.unit.capitalize()      # the book's numbering, from 1
        out.append(f"The largest gap between two {'player' if cell.unit == 'seat' else cell.unit}s' win shares is "
                   f"{100 * b['gap']:.1f} points ({word} {b['best_side'] + 1} against {word} {b['worst_side'] + 1}; "
                   f"simultaneous 95%: "
                   f"{100 * b['ci95_low']:.1f} to {100 * b['ci95_high']:.1f}).")
    d = m.get("draw_share")
    if d:
        out.append(f"Nobody wins {pct(d['share'])} of games (95%: {interval(d['ci95_low'], d['ci95_high'])}).")
    length = m.get("length_target")
    if length:
        out.append(f"{pct(length['share'])} of games last {length['shortest']} to {length['longest']} rounds "
                   f"(95%: {interval(length['ci95_low'], length['ci95_high'])}); {pct(length['shorter_share'])} "
                   f"are shorter, {pct(length['longer_share'])} longer.")
    lead = m.get("lead_changes")
    if lead:
        out.append(f"The lead changes {lead['lead_changes_mean']:.2f} times a game (95%: "
                   f"{lead['lead_changes_ci95_low']:.2f} to {lead['lead_changes_ci95_high']:.2f}); the winner was "
                   f"behind after round {lead['behind_after']} in {pct(lead['comeback_share'])} of the games it "
                   f"applies to (95%: {interval(lead['comeback_ci95_low'], lead['comeback_ci95_high'])}).")
    idle = m.get("idle_turns")
    if idle and idle["share"] is not None:
        out.append(f"{pct(idle['share'])} of turns end with no action taken (95%: "
                   f"{interval(idle['ci95_low'], idle['ci95_high'])}).")
    return out


def text_summary(report: Report) -> list[str]:
    """A few lines for the terminal: games, per cell the first player's win share with its interval and
    the end reasons."""
    lines = [f"{report.games:,} games of {report.title} in {len(report.cells)} cell(s); bots, not people"]
    for c in report.cells:
        f = (c.metrics.get("first_player_advantage") or [None])[0]
        first = (f"of the decided games {first_label(c)} wins {pct(f['first_share'])} (95%: "
                 f"{interval(f['ci95_low'], f['ci95_high'])}, fair {pct(f['fair_share'])}); undecided "
                 f"{pct(f['undecided_share'])}") if f and f["first_share"] is not None else "no first-player share"
        ends = ", ".join(f"{r} {pct(n / c.games)}" for r, n in c.ends) if c.games else "none"
        lines.append(f"  {c.label}: {c.games:,} games; {first}; ends: {ends}")
        for m in report.per_cell:
            said = m.line(c.measures[m.name]) if m.name in c.measures else None
            if said:
                lines.append(f"    {said}")
    return lines


# ---------------------------------------------------------------------------------------------------
# Plots: small multiples, one panel per cell, shared axes
# ---------------------------------------------------------------------------------------------------

def _mpl():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _text(s: str, width: int = 48, lines: int = 4) -> str:
    """User text as a plot label: no mathtext (a ``$`` is a dollar), wrapped at ``width`` on up to ``lines``
    lines (a panel title keeps every varied value: "explorer_mansions_2p=2" and "=3" stay apart), cut only past
    that."""
    import textwrap
    parts = textwrap.wrap(s, width, break_long_words=True, break_on_hyphens=False) or [""]
    if len(parts) > lines:
        parts = parts[:lines]
        parts[-1] = parts[-1][:width - 1] + "…"
    return "\n".join(parts).replace("$", r"\$")


def _grid(plt, n: int, height: float = 2.9, sharex: bool = True, sharey: bool = True):
    cols = min(PANEL_COLUMNS, max(1, n))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.9 * cols, height * rows), squeeze=False, sharex=sharex,
                             sharey=sharey)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _finish(plt, fig) -> str:
    fig.tight_layout()
    data = png_base64(fig)
    plt.close(fig)
    return data


def wins_figure(report: Report) -> str:
    """Each side's and the first player's win share with Wilson 95% error bars, the fair share dashed, on a
    y axis zoomed to the data: the same axis for every cell with the same number of sides (the same fair
    share), so that a 2-player cell's 50% does not squash a 4-player cell's 25%."""
    plt = _mpl()
    fig, axes = _grid(plt, len(report.cells), sharex=False, sharey=False)
    span: dict[int, list[float]] = {}
    for cell, ax in zip(report.cells, axes):
        n = cell.games - cell.no_winner       # shares of the decided games (the undecided: their own line)
        word = "Player" if cell.unit == "seat" else cell.unit.capitalize()
        labels = [f"{word} {s + 1}" for s in range(cell.sides)] + ["first"]
        counts = cell.side_wins + [cell.first_wins]
        seen = span.setdefault(cell.sides, [])
        for i, k in enumerate(counts):
            p = k / n if n else 0.0
            lo, hi = stats.wilson(k, n)
            seen += [lo, hi]
            colour = FIRST if i == cell.sides else SIDE_COLOURS[i % len(SIDE_COLOURS)]
            ax.errorbar([i], [p], yerr=[[max(0.0, p - lo)], [max(0.0, hi - p)]], fmt="o", color=colour, capsize=4)
        if cell.sides:
            fair = 1.0 / cell.sides
            seen.append(fair)
            ax.axhline(fair, color="#999", ls="--", lw=1, label=f"fair share {pct(fair, 0)}")
            ax.legend(fontsize=7, loc="best")
        ax.set_xticks(range(len(labels)), labels, fontsize=8)
        ax.set_xlim(-0.5, len(labels) - 0.5)
        ax.set_title(_text(cell.label), fontsize=9)
        ax.set_ylabel("share of decided games")
    for cell, ax in zip(report.cells, axes):
        seen = span.get(cell.sides) or [0.0, 1.0]
        pad = max(0.005, 0.1 * (max(seen) - min(seen)))
        ax.set_ylim(max(0.0, min(seen) - pad), min(1.0, max(seen) + pad))
    return _finish(plt, fig)


def length_figure(report: Report) -> str:
    """Games per number of rounds, a histogram per cell on shared axes (to the 98th percentile of the longest
    cell: the share beyond it, stalled games among them, is in the panel's title)."""
    plt = _mpl()
    fig, axes = _grid(plt, len(report.cells))
    end = max((_quantile(c.lengths, 0.98) for c in report.cells if c.lengths), default=1)
    for cell, ax in zip(report.cells, axes):
        xs = [x for x in sorted(cell.lengths) if x <= end]
        n = cell.games or 1
        ax.bar(xs, [cell.lengths[x] / n for x in xs], width=0.9, color="#4c78a8")
        beyond = sum(v for x, v in cell.lengths.items() if x > end)
        ax.set_title(_text(cell.label) + (f"\n({pct(beyond / n)} longer than {end} rounds)" if beyond else ""),
                     fontsize=9)
        ax.set_xlabel("rounds")
        ax.set_ylabel("share of games")
    return _finish(plt, fig)


def ends_figure(report: Report) -> str:
    """How games end: each end reason's share with Wilson 95% error bars, per cell."""
    plt = _mpl()
    reasons = list(dict.fromkeys(r for c in report.cells for r, _ in c.ends))
    fig, axes = _grid(plt, len(report.cells), sharex=False)
    shares = [k / c.games for c in report.cells for _, k in c.ends if c.games and k]
    small = bool(shares) and min(shares) < 0.05       # a 1% share on a 0-1 axis would be invisible: log scale
    floor = min(shares) / 3 if small else 0.0
    for cell, ax in zip(report.cells, axes):
        got = dict(cell.ends)
        for i, r in enumerate(reasons):
            k, n = got.get(r, 0), cell.games
            p = k / n if n else 0.0
            lo, hi = stats.wilson(k, n)
            ax.barh([i], [p - floor if small else p], left=floor, color="#72b7b2",
                    xerr=[[max(0.0, p - max(lo, floor))], [max(0.0, hi - p)]], capsize=3)
            ax.text(max(hi, floor), i, f"  {pct(p, 2 if p < 0.1 else 1)}", va="center", fontsize=7)
        ax.set_yticks(range(len(reasons)), [_text(r, 24) for r in reasons], fontsize=8)
        if small:
            ax.set_xscale("log")
            ax.set_xlim(floor, 1.5)
            ax.set_xlabel("share of games (log scale)")
        else:
            ax.set_xlim(0, min(1.0, 1.2 * max(shares or [1.0])))
            ax.set_xlabel("share of games")
        ax.set_title(_text(cell.label), fontsize=9)
    return _finish(plt, fig)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def answer_axis(report: Report) -> str | None:
    """The varied rule parameter the answer is drawn against: a numeric one taking at least two values
    (round_limit, team_vp_target); None when no numeric rule parameter varies (a setup value such as players
    changes the fair share itself, and its cells are side by side below)."""
    setup = set(GAMES[report.game].setup_columns) | {"bots", "data_name"}
    return next((c for c in report.varying if c not in setup
                 and all(_number(cell.values.get(c)) is not None for cell in report.cells)
                 and len({cell.values.get(c) for cell in report.cells}) > 1), None)


def answer_figure(report: Report, x: str) -> str:
    """The chart a designer would draw: the answers against the varied parameter ``x``, one line per value of
    the other varied columns, with Wilson 95% bars: the first player's share of the decided games (the fair
    share dashed), and the share of games ending each way but the commonest (log scale when small)."""
    plt = _mpl()
    series: dict[str, list[Cell]] = {}
    for cell in report.cells:
        rest = ", ".join(f"{c}={v}" for c, v in cell.values.items() if c != x) or "all"
        series.setdefault(rest, []).append(cell)
    totals: dict[str, int] = {}
    for cell in report.cells:
        for r, k in cell.ends:
            totals[r] = totals.get(r, 0) + k
    reasons = sorted(totals, key=lambda r: -totals[r])[1:] or list(totals)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.4))
    shown = []
    for i, (name, cells) in enumerate(series.items()):
        cells = sorted(cells, key=lambda c: _number(c.values[x]))
        xs = [_number(c.values[x]) for c in cells]
        ys, lows, highs = [], [], []
        for c in cells:
            n = c.games - c.no_winner
            lo, hi = stats.wilson(c.first_wins, n)
            y = c.first_wins / n if n else float("nan")
            ys.append(y)
            lows.append(max(0.0, y - lo))
            highs.append(max(0.0, hi - y))
        colour = SIDE_COLOURS[i % len(SIDE_COLOURS)]
        a1.errorbar(xs, ys, yerr=[lows, highs], fmt="o-", color=colour, capsize=3, label=_text(name, 30))
        if cells and cells[0].sides:
            a1.axhline(1.0 / cells[0].sides, color=colour, ls="--", lw=0.8)
        for j, r in enumerate(reasons):
            got = [dict(c.ends).get(r, 0) for c in cells]
            ps = [k / c.games if c.games else 0.0 for k, c in zip(got, cells)]
            bounds = [stats.wilson(k, c.games) for k, c in zip(got, cells)]
            shown += [p for p in ps if p > 0]
            a2.errorbar(xs, ps, yerr=[[max(0.0, p - lo) for p, (lo, _) in zip(ps, bounds)],
                                      [max(0.0, hi - p) for p, (_, hi) in zip(ps, bounds)]],
                        fmt="o", color=colour, ls=["-", "--", ":", "-."][j % 4], capsize=3,
                        label=_text(f"{r} ({name})", 34))
    a1.set_xlabel(x)
    a1.set_ylabel("first player's share of decided games")
    a1.set_title("the first player's edge (fair share dashed)", fontsize=9)
    a1.legend(fontsize=7)
    a2.set_xlabel(x)
    a2.set_ylabel("share of games")
    if shown and min(shown) < 0.05:
        a2.set_yscale("log")
    a2.set_title("how games end (the commonest way left out)", fontsize=9)
    a2.legend(fontsize=6)
    return _finish(plt, fig)


def standings_figure(report: Report) -> str:
    """Each seat's median standing after each round with its 25-75% band, per cell, shared axes."""
    plt = _mpl()
    fig, axes = _grid(plt, len(report.cells))
    for cell, ax in zip(report.cells, axes):
        seats = sorted({s for _, s, *_ in cell.band})
        for s in seats:
            pts = [(r, q25, q50, q75) for r, ss, _, q25, q50, q75 in cell.band if ss == s]
            colour = SIDE_COLOURS[s % len(SIDE_COLOURS)]
            ax.plot([p[0] for p in pts], [p[2] for p in pts], color=colour, label=f"seat {s}")
            ax.fill_between([p[0] for p in pts], [p[1] for p in pts], [p[3] for p in pts], color=colour, alpha=0.1)
        ax.set_title(_text(cell.label), fontsize=9)
        ax.set_xlabel("round")
        ax.set_ylabel("standing (median, 25-75%)")
        if seats:
            ax.legend(fontsize=7)
    return _finish(plt, fig)


# ---------------------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------------------

PAGE_CSS = CSS + """
.summary { background: #f6f8fa; padding: .6em 1.2em; border-radius: 6px; }
.note { color: #555; font-size: 13px; }
.warn { color: #8a1f11; background: #fdecea; padding: .3em .6em; border-radius: 4px; }
.bots { background: #fff3e0; padding: .4em .8em; border-radius: 6px; }
"""


def _img(name: str, data: str) -> str:
    return f"<img class='plot' alt='{esc(name)}' src='data:image/png;base64,{data}'>"


def _metric_table(report: Report) -> str:
    head = ["cell", "games", "first player's share (95%)", "edge over fair (95%)",
            "largest gap between sides (simultaneous 95%)", "no winner (95%)",
            f"{report.params['shortest']}-{report.params['longest']} rounds (95%)"]
    if report.has_standings:
        head += ["lead changes a game (95%)", "winner settled from round (95%)",
                 f"comebacks from behind after round {report.params['behind_after']} (95%)"]
    if report.has_idle:
        head += ["turns with no action (95%)"]
    rows = []
    for c in report.cells:
        for i in range(max([len(v) for v in c.metrics.values()] + [1])):
            m = {k: (v[i] if i < len(v) else None) for k, v in c.metrics.items()}
            f, b, d, g = (m.get(k) for k in ("first_player_advantage", "balance", "draw_share", "length_target"))
            row = [c.label, f"{c.games:,}",
                   f"{pct(f['first_share'])} ({interval(f['ci95_low'], f['ci95_high'])})" if f else "n/a",
                   f"{points(f['advantage'])} pts ({points(f['advantage_low'])} to "
                   f"{points(f['advantage_high'])})" if f else "n/a",
                   f"{100 * b['gap']:.1f} pts ({100 * b['ci95_low']:.1f} to {100 * b['ci95_high']:.1f})" if b else "n/a",
                   f"{pct(d['share'])} ({interval(d['ci95_low'], d['ci95_high'])})" if d else "n/a",
                   f"{pct(g['share'])} ({interval(g['ci95_low'], g['ci95_high'])})" if g else "n/a"]
            if report.has_standings:
                lead = m.get("lead_changes")
                row += [f"{lead['lead_changes_mean']:.2f} ({lead['lead_changes_ci95_low']:.2f} to "
                        f"{lead['lead_changes_ci95_high']:.2f})" if lead else "n/a",
                        f"{lead['decided_round_mean']:.2f} ({lead['decided_round_ci95_low']:.2f} to "
                        f"{lead['decided_round_ci95_high']:.2f}) of {lead['decided_games']:,} games"
                        if lead and lead["decided_round_mean"] is not None else "n/a",
                        f"{pct(lead['comeback_share'])} ({interval(lead['comeback_ci95_low'], lead['comeback_ci95_high'])}) "
                        f"of {lead['comeback_games']:,}" if lead and lead["comeback_games"] else "n/a"]
            if report.has_idle:
                idle = m.get("idle_turns")
                row += [f"{pct(idle['share'])} ({interval(idle['ci95_low'], idle['ci95_high'])})" if idle else "n/a"]
            rows.append(row)
    return html_table(head, rows)


def _cards_section(report: Report) -> str:
    if report.cards_note:
        return f"<p class='note' id='cards-note'>{esc(report.cards_note)}.</p>"
    every = [r for c in report.cells for r in c.cards]
    # the columns this game's cards table keeps: Tales survival and kills, Paws plays and fights
    extra = [(key, head, fmt) for key, head, fmt in (
        ("survived", "survived", lambda r: pct(r["survived"] / r["present"])),
        ("kills_per_game", "kills per game", lambda r: f"{r['kills_per_game']:.2f}"),
        ("plays_per_game", "plays per seat-game", lambda r: f"{r['plays_per_game']:.2f}"),
        ("fights_per_game", "fights per seat-game", lambda r: f"{r['fights_per_game']:.2f}"))
        if not every or any(r.get(key) is not None for r in every)]
    if any(r.get("plays_per_game") is not None for r in every):
        what = ("how often the seat played it (an item card) and the fights it was in (a monster card: monster "
                "fights, invasions made and defended), per seat-game. Bots choose which cards they play")
    else:
        what = "how often it survived and its kills per game. Bots choose which cards they field"
    parts = [f"<p class='note'>Per cell, the {MAX_CARDS} cards present in the most seat-games: the win share of "
             f"the seats that had the card (Wilson 95%), {what}, so a card's win share is association, not "
             "cause.</p>"]
    for c in report.cells:
        rows = [[r["kind"], r["card"], f"{int(r['present']):,}", f"{pct(r['wins'] / r['present'])} "
                 f"({interval(*r['ci95'])})"]
                + [fmt(r) if r[key] is not None else "n/a" for key, _, fmt in extra]
                for r in c.cards]
        parts.append(f"<h3>{esc(c.label)}</h3>" + (html_table(
            ["kind", "card", "seat-games present", "win share (95%)"] + [head for _, head, _ in extra], rows)
            if rows else "<p class='note'>no cards in this cell</p>"))
    return "".join(parts)


def page(report: Report) -> str:
    """The report as one self-contained HTML page."""
    title = f"playtest report: {report.name}"
    n_cells = len(report.cells)
    varied = (f"What varied: {', '.join(report.varying)} ({n_cells} cells, shown side by side; every number is "
              f"one cell's, none is pooled)." if report.varying else
              f"Nothing varied: {'one cell' if n_cells == 1 else f'{n_cells} cells with the same setup'}.")
    setup = set(GAMES[report.game].setup_columns) | {"data_name"}
    fixed = ", ".join(f"{k} {v}" for k, v in report.fixed.items() if k in setup and k != "bots")
    rules = ", ".join(f"{k} {v}" for k, v in report.fixed.items() if k not in setup and k != "bots")
    lineups = sorted({b for c in report.cells for b in c.bots})
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
             f"<style>{PAGE_CSS}</style></head><body><h1>{esc(title)}</h1>",
             "<section id='summary' class='summary'><h2>Summary</h2>",
             f"<p>{report.games:,} games of <b>{esc(report.title)}</b> from {esc(report.kind)} "
             f"<code>{esc(report.source)}</code>. {esc(varied)}</p>",
             f"<p>Every cell shares: {esc(fixed) or 'nothing else'}.</p>",
             f"<details><summary>and these rule parameters</summary><p>{esc(rules) or 'none'}</p></details>",
             "<p class='bots'><b>Bots, not people:</b> every number here is how these bots play: "
             + esc("; ".join(lineups)) + ". People may play differently.</p>"]
    if any(c.stop for c in report.cells):
        parts.append("<p>Each cell played until its answer was precise enough (a <code>[stop]</code> sweep): "
                     "its stopping metric's interval below is a confidence sequence, valid however often it was "
                     "looked at; a fixed-size interval of the same metric would not be, after stopping on it.</p>")
    for c in report.cells:
        stopped = [f"Stopped: {stop_line(c.stop)}."] if c.stop else []
        parts.append(f"<h3>{esc(c.label)} <span class='note'>({c.games:,} games; {esc('; '.join(c.bots))})</span></h3><ul>"
                     + "".join(f"<li>{esc(h)}</li>" for h in stopped + headlines(report, c)) + "</ul>")
    parts.append("</section>")
    parts += report.sections
    if report.ladder is not None:
        parts.append(_ladder_section(report.ladder))
    if report.tune is not None:
        parts.append(_tune_section(report.tune))
    x = answer_axis(report)
    if x is not None:
        parts.append(f"<section id='answer'><h2>The answer against {esc(x)}</h2><p class='note'>Each point is one "
                     f"cell, with its Wilson 95% interval; one line per value of what else varied. Left: the "
                     f"first player's share of the games somebody won. Right: the share of games ending each way "
                     f"but the commonest.</p>" + _img(f"answers against {x}", answer_figure(report, x)) + "</section>")
    parts.append("<section id='wins'><h2>Who wins</h2><p class='note'>Of the games somebody won, each "
                 + esc("player" if not report.cells or report.cells[0].unit == "seat" else report.cells[0].unit)
                 + "'s share and the first player's (teams: the first player's team), with Wilson 95% error "
                   "bars; the dashed line is the fair share (1 / sides). The games nobody won are not anyone's "
                   "loss: their share is in How games end and the summary. The axis is zoomed to the data, the "
                   "same for every cell with as many sides.</p>"
                 + _img("win shares per cell", wins_figure(report)) + "</section>")
    parts.append("<section id='length'><h2>Game length</h2>"
                 + _img("game length per cell", length_figure(report)) + "</section>")
    parts.append("<section id='end-reasons'><h2>How games end</h2>"
                 + _img("end reasons per cell", ends_figure(report)) + "</section>")
    parts.append("<section id='standings'><h2>Standings per round</h2>")
    if report.has_standings:
        parts.append("<p class='note'>Each seat's median standing after each round, with its 25-75% band, over "
                     "the games still going at that round (short games drop out as rounds go on), to the 95th "
                     "percentile of game length.</p>" + _img("standings per round per cell", standings_figure(report)))
    else:
        parts.append(f"<p class='note' id='standings-note'>{esc(report.title)} records keep no per-round standings "
                     "trace: no standings plot, lead changes, comebacks or decisive round.</p>")
    parts.append("</section>")
    parts.append("<section id='metrics'><h2>Designer metrics</h2>" + _metric_table(report)
                 + "<p class='note'>Rates with Wilson 95% intervals; the gap between sides with a simultaneous "
                   "(Bonferroni) 95% interval; means with t 95% intervals. "
                 + ("" if report.has_idle else "Turns with no action: the record lacks it (no idle_turns column). ")
                 + "Each is a canned query: playtest query NAME --results RESULTS (balance, "
                   "first_player_advantage, draw_share, lead_changes, length_target, idle_turns); "
                   "docs/report.md defines them.</p></section>")
    for m in report.per_cell:
        if any(m.name in c.measures for c in report.cells):
            parts.append(m.section(report))
    parts.append("<section id='cards'><h2>Cards</h2>" + _cards_section(report) + "</section>")
    parts.append(f"<p class='note'>Numbers read in {report.seconds:.1f} s"
                 + (f" by <code>{esc(report.command)}</code>" if report.command else "") + ".</p>")
    parts.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(parts)


def _ladder_section(ladder: dict) -> str:
    """The ladder's answer first: ratings with win chances, whether one rating per bot fits, the win matrix
    (first when the ratings do not fit)."""
    if "note" in ladder:
        return f"<section id='ladder'><h2>Ratings</h2><p class='note'>{esc(ladder['note'])}</p></section>"
    rated, anchor = ladder["ratings"], ladder["anchor"]
    from queries.ratings import win_chance
    ratings_table = html_table(
        ["bot", "Elo", "95% interval", f"wins against {rated[anchor]['bot']}", "games"],
        [[r["bot"], f"{round(r['elo'])}", f"{round(r['ci95_low'])} to {round(r['ci95_high'])}",
          "anchor" if i == anchor else f"{100 * win_chance(r['elo']):.0f}% ({100 * win_chance(r['ci95_low']):.0f} "
                                       f"to {100 * win_chance(r['ci95_high']):.0f}%)", f"{r['games']:,}"]
         for i, r in enumerate(rated)])
    bots = ladder["bots"]
    by = {(m["bot"], m["opponent"]): m for m in ladder["matrix"]}
    cells = [[a] + [("-" if a == b else "not met" if (a, b) not in by or by[(a, b)]["share"] is None else
                     f"{pct(by[(a, b)]['share'], 0)} ({pct(by[(a, b)]['ci95_low'], 0)} to "
                     f"{pct(by[(a, b)]['ci95_high'], 0)})") for b in bots] for a in bots]
    matrix = ("<h3>Head to head</h3><p class='note'>The row bot's win share against the column bot over both seat "
              "orders, Wilson 95% interval.</p>" + html_table(["bot"] + bots, cells))
    fits = ladder["fit"]["fits"] is not False          # None: nothing to test, no claim either way
    fit = f"<p class='{'note' if fits else 'warn'}'>{esc(ladder['fit_line'])}</p>"
    lines = "<ul>" + "".join(f"<li>{esc(x)}</li>" for x in ladder["lines"]) + "</ul>"
    field = ladder["field"]
    fit += ("<h3>Which bots matter</h3><ul id='field'>"
            + "".join(f"<li class='{'warn' if i == 0 and field['cycle'] else 'note'}'>{esc(x)}</li>"
                      for i, x in enumerate(field["says"])) + "</ul>")
    body = (fit + matrix + "<h3>Ratings (an average)</h3>" + ratings_table + lines) if not fits \
        else (lines + ratings_table + fit + matrix)
    return ("<section id='ladder'><h2>Ratings</h2><p class='note'>Bradley-Terry ratings on the Elo scale from "
            "these games' meetings (bots, not people), with 95% intervals and the share of games each would win "
            "against the anchor.</p>" + body + "</section>")


def _tune_section(tune: dict) -> str:
    """A tune's answer first: the best candidate, those that cannot be told apart from it (and whether their
    constraints are shown to hold), and why the others were dropped."""
    if "note" in tune:
        return f"<section id='tune'><h2>Tuning answer</h2><p class='note'>{esc(tune['note'])}</p></section>"

    def holds(e: dict) -> str:
        return "; ".join(f"{h}: {pct(est)} ({pct(iv[0])} to {pct(iv[1])})" for h, est, iv in e["holds"]) or "n/a"
    best = tune["best"]
    head = (f"<p><b>Best candidate: {esc(best['label'])}</b> ({esc(tune['metric'] or 'objective')}: "
            f"{esc(holds(best))}){'' if best['certified'] else ' - its constraints are not yet shown to hold'}.</p>"
            if best else "<p><b>No candidate met the constraints.</b></p>")
    same = tune["indistinguishable"]
    rows = [[e["label"], holds(e), "shown to hold" if e["certified"] else "NOT yet shown to hold (more games needed)"]
            for e in same]
    tied = ("<h3>Cannot be told apart from the best</h3>" + html_table(["candidate", "objective (95%)",
                                                                      "constraints"], rows)) if rows else ""
    dropped = [e for e in tune["candidates"] if e["reason"] and e["label"] not in {x["label"] for x in same}]
    drops = ("<h3>Dropped, and why</h3>" + html_table(["candidate", "why"], [[e["label"], e["reason"]]
                                                                          for e in dropped])) if dropped else ""
    games = f"<p class='note'>{tune['games']:,} games in the race.</p>" if tune.get("games") is not None else ""
    return "<section id='tune'><h2>Tuning answer</h2>" + head + tied + drops + games + "</section>"


def default_out(source: str) -> Path:
    """Where the page goes by default: ``DIR/report.html`` for a sweep, ``FILE.report.html`` beside a file."""
    if is_uri(source):             # object storage: the page is written here, named after the prefix
        return Path(f"{shown(source).rstrip('/').rsplit('/', 1)[-1] or 'sweep'}.report.html")
    p = Path(source)
    return p / "report.html" if p.is_dir() else p.with_name(p.name + ".report.html")


def build(source: str, out: Path, *, shortest: int = 5, longest: int = 15, behind_after: int = 3,
          command: str = "", cards: str | None = None, sections: list[str] | None = None,
          per_cell: Sequence[PerCell] = ()) -> Report:
    """Read the results and write the page to ``out``; returns the report (with its build time). ``sections``:
    the measures' own (measures/answers.py), shown after the summary; ``per_cell``: the measures read per cell
    (:func:`read`)."""
    from sim.files import write_atomic
    if shortest > longest:
        raise ReportError(f"--target {shortest}-{longest}: the shortest length is more than the longest; "
                          "expected SHORTEST-LONGEST with SHORTEST <= LONGEST")
    report = read(source, shortest=shortest, longest=longest, behind_after=behind_after, cards=cards,
                  per_cell=per_cell)
    report.command = command
    report.sections = list(sections or [])
    write_atomic(out, page(report))
    return report



def summary_lines(results: str, cards: str | None = None) -> list[str]:
    """The short text summary ``playtest run`` and ``playtest sweep`` (and a sweep job) print at their end, and the
    command that makes the page; a line saying why when the results cannot be read."""
    import shlex
    try:
        r = read(results, brief=True)
    except (ReportError, QueryError, ResultsError) as e:
        return [f"summary: not available ({e})"]
    except Exception as e:  # noqa: BLE001 - the games are played and written: a summary bug must not fail the run
        return [f"summary: not available (unexpected {type(e).__name__}: {e}; a bug in playtest, please report it)"]
    again = f" --cards {shlex.quote(cards)}" if cards else ""
    return text_summary(r) + [f"the page: playtest report {shlex.quote(results)}{again}"]
