"""The games playtest knows: one interface every game implements, and the registry that finds them.

A game is one package that registers a :class:`Game` subclass under the entry-point group
``playtest.games`` (in ``pyproject.toml``: ``[project.entry-points."playtest.games"]``, name = the
game's name, value = ``package.module:Class``). :data:`GAMES` reads that group; this module imports
nothing game-specific, and nothing above it (CLI, sweeps, queries, compare, bench, regression) names a
game: whatever they need to know about one, they ask its :class:`Game`.

A :class:`Game` turns plain values (a preset name, rule overrides, setup values such as board or
players, paths to data files) into a validated, picklable :class:`Match`: everything needed to play
any range of games of one configuration with either engine.
"""

from __future__ import annotations

import abc
import dataclasses
import hashlib
import importlib
import json
import os
import sys
from dataclasses import dataclass
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterator, Mapping, NamedTuple

import pyarrow as pa

from sim.params import RuleError, as_dict, digest, fields, option_defaults, provenance
from sim.record_schema import DATA_DOCS, add_data_columns

ENGINES = ("core", "reference")          # core: the Cython engine (default); reference: pure Python
ENTRY_POINT_GROUP = "playtest.games"     # where a game package registers its Game class
WINNER_RULES = ("winner", "none", "either")   # what an end reason says of the winner (Game.end_reasons)


class EngineError(RuntimeError):
    """An engine could not play a configuration (a capacity overflowed, or it has no such game yet)."""


def check_engine(engine: str) -> None:
    """Refuse an unknown engine name, listing the valid ones."""
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r} is not available; expected one of {', '.join(ENGINES)}")


@dataclass(frozen=True)
class Match:
    """One validated game configuration: game, setup, rule set and card data. Picklable (Ray ships it)."""

    game: str
    setup: Any                       # the game's frozen setup object (board/mode/players/bots, ...)
    rules: Any                       # the game's frozen rule-parameter object
    data: Any                        # the game's validated card data (has ``.digest``)
    tables: tuple[str, ...] = ("games",)   # result tables a batch returns; "games" always first
    # the options of tables that take some (Game.table_options), as resolved: ((table, ((key, value), ...)), ...)
    options: tuple = ()

    @property
    def definition(self) -> "Game":
        """The registered game this configuration is of."""
        return GAMES[self.game]

    @property
    def schemas(self) -> dict[str, pa.Schema]:
        return {name: self.definition.schemas[name] for name in self.tables}

    def play_batch(self, seed: int, start: int, count: int, engine: str = "core") -> dict[str, pa.Table]:
        """Games ``start .. start+count-1`` of master seed ``seed``: {table name: Arrow table}."""
        return BatchRequest(self, seed, start, count, engine).play()

    def check_engine(self, engine: str) -> None:
        """Refuse, before any game is played, a configuration ``engine`` cannot play (an EngineError
        naming what it lacks, e.g. a rule parameter the core has no field for)."""
        check_engine(engine)
        self.definition.check_engine(self, engine)

    def iter_batches(self, seed: int, start: int, count: int, engine: str = "core",
                     chunk: int | None = None) -> Iterator[dict[str, pa.Table]]:
        """The same games as :meth:`play_batch`, in chunks of at most ``chunk`` games (bounded memory)."""
        check_engine(engine)
        chunk = chunk or self.definition.default_chunk[engine]
        for lo in range(start, start + count, chunk):
            yield self.play_batch(seed, lo, min(chunk, start + count - lo), engine)

    def play_one(self, seed: int, game_index: int, log: list[str] | None = None, bots: list | None = None) -> dict:
        """One game's record from the reference engine; pass a list as ``log`` for the turn-by-turn log, and
        ``bots`` to seat other bots than the setup's (a trace's replay, sim/kit/trace.py)."""
        record = self.definition.play_logged(self, seed, game_index, log, bots)
        return {**record, "data_digest": self.data_digest, "data_name": self.data_name}

    @property
    def rules_digest(self) -> str:
        return digest(self.rules)

    @property
    def data_digest(self) -> str:
        return self.data.digest

    @property
    def data_name(self) -> str:
        """The card data files by name (``key=file.toml; ...``), as the record shows them."""
        return "; ".join(f"{key}={os.path.basename(str(path))}" for key, path in self.definition.data_files(self.data))

    def describe(self) -> dict[str, Any]:
        """Plain, JSON-able description: game, setup values and every rule parameter."""
        return {"game": self.game, "setup": self.definition.setup_values(self.setup),
                "rules": as_dict(self.rules), "tables": list(self.tables),
                **({"options": {t: dict(kv) for t, kv in self.options}} if self.options else {})}

    @property
    def digest(self) -> str:
        """Digest of everything that decides the games: setup, rules (engine options only away from their
        default) and card data."""
        blob = json.dumps({**self.describe(), "rules": provenance(self.rules), "data": self.data_digest},
                          sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


@dataclass(frozen=True)
class BatchOptions:
    """A batch's options as a compiled core reads them, field for field the twin of its BatchOptions struct
    (core/kit/types.pxd; ``values`` there is ``oracle_weights`` given), which the core fills once from them: a
    :class:`BatchRequest`'s (sim.kit.batch.core_options), or given directly to a core's ``play_batch(inputs,
    options)`` where no Match is at hand."""

    seed: int                        # the master seed: game k plays the random stream of (seed, k)
    start: int                       # the first game's index
    count: int                       # games start .. start+count-1
    cards: bool = False              # also the cards table's rows
    trace: bool = False              # also every game's decision trace
    samples: bool = False            # also the search bots' decisions as training samples
    oracle_weights: Any = None       # a model's (policy, value) weights: each seat's chance by its value head


@dataclass(frozen=True)
class BatchRequest:
    """One batch of games, passed whole from :meth:`Match.play_batch` down to an engine (``Game.play_games``, then the
    game's core seam, which reads its :class:`BatchOptions` off it, sim.kit.batch): which games of which
    configuration (the match's tables say what to record beside the games table), with which engine."""

    match: Match                     # the configuration: setup (bots included), rules, card data, tables
    seed: int                        # the master seed: game k plays the random stream of (seed, k)
    start: int                       # the first game's index
    count: int                       # games start .. start+count-1
    engine: str = "core"             # one of ENGINES
    samples: bool = False            # the search bots' decisions as the learned bots' training samples (core only)

    def __post_init__(self):
        check_engine(self.engine)

    @property
    def setup(self) -> Any:
        return self.match.setup

    @property
    def rules(self) -> Any:
        return self.match.rules

    @property
    def data(self) -> Any:
        return self.match.data

    def play(self) -> dict[str, pa.Table]:
        """{table name: Arrow table} of the batch, the card data columns added to the games table."""
        m = self.match
        tables = m.definition.play_games(self)
        return {**tables, "games": add_data_columns(tables["games"], m.data_digest, m.data_name)}


@dataclass(frozen=True)
class CompareColumns:
    """What ``playtest compare`` reads from a game's records: SQL expressions over one row of ``games``."""

    first_win: str                   # true when the first player's seat (or team) won
    winner: str                      # the winning seat or team as an integer; -1: none
    draw: str                        # true for a draw
    unit: str                        # text: what competes, 'seat' or 'team'
    units: str                       # how many seats or teams compete
    own_rows: tuple[str, ...] = ()   # end reasons with a row of their own (not an "ends by" row)
    stall_reason: str | None = None  # the end reason of a game nobody won by the round cap: a "stall share" row
    knockouts: str | None = None     # knockouts in one game: a "knockouts per game" row


class BenchPreset(NamedTuple):
    """One configuration ``playtest bench`` measures: its label and what to resolve."""

    label: str
    rules: str | None
    overrides: dict
    setup: dict


@dataclass(frozen=True)
class PausedGames:
    """A match's games, paused at each top-level decision in the engine core (its scenario module's
    PausedGame: ``paused``, ``seat``, ``decisions``, ``options()``, ``take(k)``, ``copy()``, ``play_on(stop_at)``,
    ``record()``, ``learned_features()``)."""

    new: Callable[[int, int, int], Any]     # (master seed, game index, stop at decision) -> a paused game
    winner: Callable[[Mapping[str, Any]], int]   # a paused game's record -> the winning side, -1 for none
    kind: Callable[[Any, Any], str]         # (paused game, one of its options) -> the option in the book's words
    side_of: Callable[[int], int]           # seat -> its side (its team, or itself)
    sides: int


class Game(abc.ABC):
    """One game playtest can simulate, as its package registers it (``playtest.games`` entry points).

    Class attributes say what the game is: its rule presets, setup values, card data files, result
    tables and what their columns mean. Methods build a :class:`Match` (``resolve``: every key checked
    here, in one place) and play it (``play_games`` for batches, ``play_logged`` for one game with its
    log). The SQL the game brings lives beside its module in ``sql/``: ``sql/queries/*.sql`` (canned
    questions), ``sql/regress/*.sql`` (nightly regression metrics) and ``sql/macros.sql`` (DuckDB macros
    its queries use, installed on every query connection).
    """

    name: ClassVar[str]                                   # registry name, and the record's ``game`` column
    title: ClassVar[str]                                  # the rulebook's title
    default: ClassVar[bool] = False                       # the game a suite or bench names when none is given
    rule_presets: ClassVar[Mapping[str, Any]]             # preset name -> its frozen rule set
    default_preset: ClassVar[str]                         # the preset whose values are the parameters' defaults
    preset_note: ClassVar[str] = ""                       # how a preset is picked when none is given (help)
    setup_keys: ClassVar[Mapping[str, str]]               # setup value name -> allowed values, in words
    data_keys: ClassVar[Mapping[str, str]]                # card data file name -> what it holds
    schemas: ClassVar[Mapping[str, pa.Schema]]            # result table -> schema ("games" first)
    column_docs: ClassVar[Mapping[str, Mapping[str, str]]]   # table -> column -> meaning
    # result tables that take options (a sweep's [kingmaking]): table -> (game, match, options, where) -> the
    # options as the match keeps them, ((key, value), ...), refusing in one line what does not apply
    table_options: ClassVar[Mapping[str, Callable]] = {}
    bot_weights: ClassVar[type]                           # the heuristic bot's frozen weights (defaults)
    search_bots: ClassVar[bool] = False                   # the core plays the search bots mcts and flat
    default_chunk: ClassVar[Mapping[str, int]] = {"core": 65536, "reference": 256}   # games in memory at once
    seats_column: ClassVar[str] = "players"               # the record column that counts the seats
    per_seat_columns: ClassVar[tuple[str, ...]]           # list columns with one value per seat (seat 0 first;
    #                                                       a list of lists: per round, then per seat)
    end_reasons: ClassVar[Mapping[str, str]]              # end reason -> winner, none or either (WINNER_RULES)
    outcome_columns: ClassVar[tuple[str, ...]]            # who won, as ``playtest play`` shows it after the log
    compare_columns: ClassVar[CompareColumns]             # what compare reads from the records
    bench_presets: ClassVar[tuple[BenchPreset, ...]]      # what ``playtest bench`` measures
    bench_profiled: ClassVar[str]                         # the label of the bench preset to profile
    # engine options ``playtest bench --core-speed`` also measures the profiled preset under ({label: rule
    # overrides}): each plays other games than the default, so it is reported beside it, never pooled
    bench_engine_options: ClassVar[Mapping[str, dict]] = {}
    # the line-ups a bot's skill is measured and tuned on (``playtest tune-bot``): the bot under test
    # takes each seat in turn against a field of other bots
    skill_setups: ClassVar[tuple[BenchPreset, ...]] = ()
    # every configuration the book sets a game up in (its versions, boards, seat counts and modes), each once: what
    # training across every configuration (``train-bot --configurations all``) and the per-configuration checks play
    configurations: ClassVar[tuple[BenchPreset, ...]] = ()
    bot_presets_path: ClassVar[Any] = None                # the heuristic's named weight sets (presets.toml)
    seat_word: ClassVar[str] = "Player"                   # what the book calls a seat ("Commander" in Tales)
    # the dotted name of the module at the compiled core's seam: its DECLARATIONS (which Python declaration each
    # struct and enum of the .pxd follows) and core_inputs(setup, rules, data) (the dicts the core is given);
    # the declaration tests read it from here, so a new game's core is checked the moment it registers
    core_module: ClassVar[str]

    @property
    def presets(self) -> tuple[str, ...]:
        return tuple(self.rule_presets)

    # --- building a configuration ---------------------------------------------------------------

    def check_keys(self, *, setup: Any = (), data: Any = (), tables: Any = (), where: str = "rules") -> None:
        """Refuse unknown setup values, data files or result tables in one line naming the valid ones.

        The one place these names are checked: the CLI, sweep specs and :meth:`resolve` all call it."""
        for what, given, valid in (("setup value", setup, self.setup_keys), ("data file", data, self.data_keys),
                                   ("result table", tables, self.schemas)):
            for key in given:
                if key not in valid:
                    raise RuleError(f"{where}: unknown {self.name} {what} {key!r}; valid: {', '.join(valid)}")

    def resolve(self, rules: str | None = None, overrides: Mapping[str, Any] | None = None,
                setup: Mapping[str, Any] | None = None, data: Mapping[str, Any] | None = None,
                tables: tuple[str, ...] = ("games",), where: str = "rules",
                options: Mapping[str, Mapping[str, Any]] | None = None) -> Match:
        """Validate a preset, overrides, setup values and data files into a :class:`Match`; ``options``: the
        options of tables that take some ({table: {key: value}}, :attr:`table_options`).

        Raises :class:`sim.params.RuleError` (or the game's data error, a ``ValueError``) naming the
        field and the allowed values.
        """
        setup, data = dict(setup or {}), dict(data or {})
        self.check_keys(setup=setup, data=data, tables=tables, where=where)
        tables = ("games",) + tuple(t for t in tables if t != "games")
        s, r, d = self.configure(rules, dict(overrides or {}), setup, data, where)
        match = Match(self.name, s, r, d, tables)
        for table, given in (options or {}).items():
            if table not in tables or table not in self.table_options:
                raise RuleError(f"{where}: [{table}] gives options of a table that "
                                f"{'takes none' if table in tables else 'the tables do not ask for'}")
            if not isinstance(given, Mapping):
                raise RuleError(f"{where}: {table} = {given!r} must be a table of options")
        resolved = tuple((t, self.table_options[t](self, match, dict((options or {}).get(t, {})), where))
                         for t in tables if t in self.table_options)
        return dataclasses.replace(match, options=resolved) if resolved else match

    @abc.abstractmethod
    def configure(self, rules: str | None, overrides: dict, setup: dict, data: dict,
                  where: str) -> tuple[Any, Any, Any]:
        """(setup object, rule set, card data) from checked keys: values are validated here, bots built
        once to refuse a bad spec, card data loaded. ``rules`` None: the game's own choice of preset."""

    @abc.abstractmethod
    def setup_values(self, setup: Any) -> dict:
        """A setup object as plain values by setup key (what a Match describes and digests)."""

    def data_files(self, data: Any) -> list[tuple[str, str]]:
        """(data key, path) of each card data file of a game's validated data (``<key>_path`` attributes)."""
        return [(key, getattr(data, f"{key}_path")) for key in self.data_keys]

    def column_meanings(self, table: str = "games") -> dict[str, str]:
        """Every column of a result table with its meaning: the game's column docs, the card data columns'
        own, or the rule parameter's help and rulebook section ("" where nothing says)."""
        params = {f.name: f for f in fields(self.rule_presets[self.default_preset])}
        docs = {**(DATA_DOCS if table == "games" else {}), **self.column_docs.get(table, {})}
        out = {}
        for col in self.schemas[table]:
            if col.name in docs:
                out[col.name] = docs[col.name]
            elif col.name in params:
                f = params[col.name]
                out[col.name] = f"rule parameter: {f.metadata['help']}" + (f" ({f.metadata['cite']})"
                                                                           if f.metadata["cite"] else "")
            else:
                out[col.name] = ""
        return out

    # --- playing ---------------------------------------------------------------------------------

    @abc.abstractmethod
    def play_games(self, request: BatchRequest) -> dict[str, pa.Table]:
        """The games of ``request`` with its engine: every table of its match's ``tables``, as the engine records
        them (:meth:`BatchRequest.play` adds the card data columns)."""

    def play_counted(self, match: Match, seed: int, start: int, count: int) -> tuple[dict[str, pa.Table], dict]:
        """:meth:`play_games` on the core, with the core's counts of its work where it keeps them
        (``decisions``: top-level decisions, ``searches``: those a search bot took, ``rollouts``: their
        simulations, ``engine_s``: processor seconds spent playing, without building the tables); a game whose
        core keeps none returns {} (what ``playtest bench --bots`` reports)."""
        return self.play_games(BatchRequest(match, seed, start, count)), {}

    def check_engine(self, match: Match, engine: str) -> None:
        """Raise an EngineError if ``engine`` cannot play ``match``. By default it plays zero games: the
        engine's inputs and capacities are checked (a core refuses a rule parameter its struct lacks)."""
        self.play_games(BatchRequest(match, 0, 0, 0, engine))

    reference_module: ClassVar[str]         # the reference engine's module: play_game(...) and option_words(...)

    def play_logged(self, match: Match, seed: int, game_index: int, log: list[str] | None,
                    bots: list | None = None) -> dict:
        """One game's record from the reference engine, its turn-by-turn log appended to ``log`` if given;
        ``bots``: one bot per seat in place of the setup's (a decision trace's replay)."""
        if bots is None:
            self.bot_roster.refuse_core_only(self.bot_specs(match.setup), "{kind} is core-only; the turn-by-turn "
                                             "log is the reference engine's replay of the core's decision trace "
                                             "(playtest play)")
        engine = importlib.import_module(self.reference_module)      # loaded when first played
        return engine.play_game(match.setup, match.rules, seed, game_index, match.data, log=log, bots=bots)

    features: ClassVar[Any] = None    # the learned bots' feature set (sim/kit/learned.py Features), or None: none yet
    models_dir: ClassVar[Any] = None  # the folder of its shipped learned models (a Path), or None

    def paused_game(self, match: Match) -> "PausedGames | None":
        """For measures that replay a game decision by decision (kingmaking, tension): the core's paused games
        of the match (:class:`PausedGames`), or None when the game's core offers none."""
        return None

    def play_samples(self, match: Match, seed: int, start: int, count: int) -> dict:
        """Games ``start .. start+count-1`` in the core, the search bots' decisions as training samples for the
        learned bots (``options``, ``seats``, ``outcome``: see sim/paws/core_engine.py play_samples)."""
        if self.features is None:
            raise EngineError(f"{self.name} has no learned bot yet")
        core = importlib.import_module(self.core_module)
        return core.play_samples(BatchRequest(match, seed, start, count, samples=True))

    bot_roster: ClassVar[Any]         # the game's bots (sim.kit.bots.BotRoster): its heuristic, weights, models

    def reference_bots(self, setup: Any) -> list:
        """The reference engine's bot for each seat of ``setup`` (a core-only bot's object only names it: the
        reference engine cannot play it; a trace's replay does, sim/kit/trace.py)."""
        return self.bot_roster.make(self.bot_specs(setup))

    def bot_specs(self, setup: Any) -> list[str]:
        """Each seat's bot spec, as the setup gives it (its ``bots``)."""
        return list(setup.bots)

    def option_words(self, g: Any, seat: int, kind: Any, option: Any) -> str:
        """One option of a decision in the rulebook's words (a search note in the log names options so)."""
        return importlib.import_module(self.reference_module).option_words(g, seat, kind, option)

    @abc.abstractmethod
    def winner(self, record: Mapping[str, Any]) -> int:
        """The winning seat or team of one game record (as the game's mode counts them); -1: none."""

    def result_line(self, record: Mapping[str, Any]) -> str:
        """One game's outcome in words, the last line of ``playtest play``: how it ended, who won (numbered as the
        book numbers its players and teams, from 1; the record's columns count from 0), how long."""
        won = [f"{self.seat_word if k.endswith(('_seat', '_side')) else 'Team'} {record[k] + 1}"
               for k in self.outcome_columns if isinstance(record.get(k), int) and record[k] >= 0]
        winner = f"winner {won[0]}" if won else "no winner"
        return f"{record['end_reason']}, {winner}, {record['rounds']} rounds, {record['turns']} turns"

    def columns_note(self) -> str:
        """How SQL reads the record's per-seat lists (printed under ``playtest columns``)."""
        c = self.per_seat_columns
        return (f"Lists in the record ({', '.join(c[:3])}, ...) hold one value per seat, seat 0 first, and SQL "
                f"indexes them from 1: {c[-1]}[1] is seat 0's.")

    @cached_property
    def engine_options(self) -> dict[str, Any]:
        """The game's versioned engine options (``param(..., option=True)``, each a record column) and their
        defaults: left out of digests while at the default (sim.params.provenance)."""
        return option_defaults(self.rule_presets[self.default_preset])

    # --- the SQL the game brings -----------------------------------------------------------------

    @cached_property
    def sql_dir(self) -> Path:
        """``sql/`` beside the module that defines the game's class."""
        return Path(sys.modules[type(self).__module__].__file__).parent / "sql"

    def query_files(self) -> list[Path]:
        """The game's canned questions (``sql/queries/*.sql``)."""
        return sorted((self.sql_dir / "queries").glob("*.sql"))

    def metric_files(self) -> list[Path]:
        """The game's nightly regression metric families (``sql/regress/*.sql``)."""
        return sorted((self.sql_dir / "regress").glob("*.sql"))

    def sql_macros(self) -> str:
        """The DuckDB macros the game's queries use (``sql/macros.sql``; empty when it has none)."""
        path = self.sql_dir / "macros.sql"
        return path.read_text() if path.is_file() else ""

    @property
    def setup_columns(self) -> tuple[str, ...]:
        """Record columns that say how a game was set up: the preset, the seats and every setup value."""
        return tuple(dict.fromkeys(("ruleset", self.seats_column, *self.setup_keys)))

    def __repr__(self) -> str:
        return f"<game {self.name}: {self.title}>"


def required_attributes() -> list[str]:
    """The class attributes every game must declare: those :class:`Game` annotates without a default."""
    return [a for a in Game.__annotations__ if not a.startswith("_") and not hasattr(Game, a)]


class Registry(Mapping[str, Game]):
    """Game name -> :class:`Game`, from the ``playtest.games`` entry points; each game's package is
    imported on first use (so importing sim.games stays cheap)."""

    def __init__(self, group: str = ENTRY_POINT_GROUP):
        self.group = group
        self._loaded: dict[str, Game] = {}

    @cached_property
    def _points(self) -> dict[str, metadata.EntryPoint]:
        points = sorted(metadata.entry_points(group=self.group), key=lambda ep: ep.name)
        return {ep.name: ep for ep in points}

    def names(self) -> tuple[str, ...]:
        """Every registered game's name, sorted."""
        return tuple(self._points)

    def __getitem__(self, name: str) -> Game:
        if name not in self._loaded:
            if name not in self._points:
                known = ", ".join(self._points) or "none (is playtest installed? pip install -e .)"
                raise RuleError(f"unknown game {name!r}; expected one of {known}")
            cls = self._points[name].load()
            if not (isinstance(cls, type) and issubclass(cls, Game)) or getattr(cls, "name", None) != name:
                raise TypeError(f"entry point {self.group}:{name} = {self._points[name].value} is not the "
                                f"Game class of a game named {name!r}")
            missing = [a for a in required_attributes() if not hasattr(cls, a)]
            if missing:        # what a game must declare (class attributes of Game with no default)
                raise TypeError(f"game {name!r} ({self._points[name].value}) does not declare "
                                f"{', '.join(missing)}; every game declares them (sim.games.Game)")
            self._loaded[name] = cls()
        return self._loaded[name]

    def __contains__(self, name: object) -> bool:
        return name in self._points

    def __iter__(self) -> Iterator[str]:
        return iter(self._points)

    def __len__(self) -> int:
        return len(self._points)

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self else default

    @property
    def default(self) -> Game:
        """The game that declares itself the default (``Game.default``): what a suite without a game plays."""
        chosen = [name for name in self.names() if self[name].default]
        if len(chosen) != 1:
            raise RuleError(f"{len(chosen)} registered games declare themselves the default "
                            f"({', '.join(chosen) or 'none'}); exactly one must")
        return self[chosen[0]]


GAMES = Registry()


def get(name: str) -> Game:
    """The game called ``name``; an unknown name is a RuleError listing the known games."""
    return GAMES[name]
