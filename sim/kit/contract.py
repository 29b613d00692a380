"""Contracts a game gets for free: differential configurations generated from its declarations.

The engine core and the reference engine must play the same games for every value of every rule parameter.
A hand-picked list of configurations leaves parameters at their default (25 of the 52 Paws parameters once were),
and then a core that ignores one of them passes every test. So the configurations are generated from the
declarations themselves (OpenSpiel loops its random-simulation test over a game's parameter values): for every
rule parameter of a game, its minimum, its maximum and a value beside its default (a parameter with choices:
every other choice; a yes/no rule: the other answer). A parameter is covered the moment it is declared.

A value that the rule set's own cross-checks refuse on its own (``max_hp`` 1 below the default ``start_hp``) is
left out; :func:`variations` says which parameters kept no value at all, and the tests require there be none.

Where each variation plays: a case played in one context picked by its place in a list tests a Teams target in
free-for-all games, where it cannot change anything, and a core that derives it from another parameter (right
for both presets, wrong for any override) passes. So a parameter that acts only in some kinds of game says so in
its declaration (``relevant``, sim/params.py), and :func:`fast_cases` plays each parameter in every kind of
game it can change (every setup but the bots: board, mode, player count), under every rule preset and both
kinds of bots, where it acts (:func:`coverage` checks it; :func:`check_relevance` holds every game to it);
:func:`idle_cases` plays it once in each kind of game where it cannot act, expecting the games unchanged.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from typing import Any

from sim.params import RuleError, acts, fields


def candidate_values(field, default: Any) -> list[Any]:
    """Minimum, maximum and a value beside the default (choices: every other one; bools: the other), each once,
    never the default itself."""
    m = field.metadata
    kind = field.type if isinstance(field.type, str) else field.type.__name__
    if m["choices"] is not None:
        values = list(m["choices"])
    elif kind == "bool":
        values = [not default]
    elif kind == "int":
        lo, hi = m["min"], m["max"]
        values = [v for v in (lo, hi, default + 1, default - 1) if v is not None
                  and (lo is None or v >= lo) and (hi is None or v <= hi)]
    else:
        values = []
    out: list[Any] = []
    for v in values:
        if v != default and v not in out:
            out.append(v)
    return out


def variations(game) -> tuple[list[dict[str, Any]], list[str]]:
    """([overrides, ...] to play on both engines, [parameters none of whose values the rule set accepts]) for
    every rule parameter of ``game`` (a registered ``sim.games.Game``), from the defaults of its default preset.

    A value the rule set's cross-checks refuse on its own is tried again with one other whole-number parameter
    moved the other way by as much (the Beginner board's four tile counts must add up to 18: one more Mansion,
    one fewer Home)."""
    base = game.resolve().rules
    ints = [f for f in fields(base) if (f.type if isinstance(f.type, str) else f.type.__name__) == "int"]

    def accepted(overrides: dict[str, Any]) -> bool:
        try:
            game.resolve(overrides=overrides)
        except (RuleError, ValueError):
            return False
        return True

    found: list[dict[str, Any]] = []
    stuck: list[str] = []
    for f in fields(base):
        kept = 0
        default = getattr(base, f.name)
        for value in candidate_values(f, default):
            tries = [{f.name: value}]
            if isinstance(value, int) and not isinstance(value, bool):
                tries += [{f.name: value, q.name: getattr(base, q.name) - (value - default)} for q in ints
                          if q.name != f.name]
            got = next((t for t in tries if accepted(t)), None)
            if got is not None:
                found.append(got)
                kept += 1
        if kept == 0:
            stuck.append(f.name)
    return found, stuck


def contexts(game) -> list[tuple[str, str | None, dict[str, Any], dict[str, Any]]]:
    """(label, preset, overrides, setup) of every configuration ``playtest bench`` measures (boards, player
    counts, modes), with the game's default bots and, when it has a ``bots`` setup value, random bots in every
    seat (they reach the rare options a heuristic avoids)."""
    return _with_random_bots(game, game.bench_presets)


def _with_random_bots(game, presets) -> list[tuple[str, str | None, dict[str, Any], dict[str, Any]]]:
    out = []
    for p in presets:
        out.append((p.label, p.rules, dict(p.overrides), dict(p.setup)))
        if "bots" in game.setup_keys:
            out.append((f"{p.label}, random bots", p.rules, dict(p.overrides), {**p.setup, "bots": "random"}))
    return out


@dataclass(frozen=True)
class Context:
    """One configuration the differential cases play in, and what kind of game it is."""

    label: str
    preset: str | None
    overrides: dict
    setup: dict
    kind: str                   # the setup values but the bots ("explorer teams 4", "survive-2v2 animalis,...")
    rules: str                  # the rule preset the rules start from
    bots: str                   # "default" or "random"

    def resolve(self, game, overrides: dict[str, Any] | None = None, tables: tuple[str, ...] = ("games",)):
        """The match of this context with ``overrides``; None when its preset refuses them."""
        try:
            return game.resolve(rules=self.preset, overrides={**self.overrides, **(overrides or {})},
                                setup=self.setup, tables=tables)
        except (RuleError, ValueError):
            return None


@functools.cache
def differential_contexts(game) -> tuple[Context, ...]:
    """Every context of :func:`contexts`, then the game's ``differential_setups`` (where a rule takes a branch
    the bench's configurations do not reach: Paws' three players and Teams on the Explorer board, Tales'
    Survive! 2 vs. 2 played to the last creature), each with the default and the random bots."""
    out = []
    for label, preset, base, setup in _with_random_bots(game, (*game.bench_presets,
                                                               *getattr(game, "differential_setups", ()))):
        m = game.resolve(rules=preset, overrides=base, setup=setup)
        values = game.setup_values(m.setup)
        kind = " ".join(str(v) if not isinstance(v, list) else ",".join(map(str, v))
                        for k, v in values.items() if k != "bots")
        out.append(Context(label, preset, base, setup, kind, m.rules.ruleset,
                           "random" if setup.get("bots") == "random" else "default"))
    return tuple(out)


def acting(game, match, names) -> bool:
    """Whether any of the rule parameters ``names`` can change a game of ``match`` (their ``relevant``
    declarations, :func:`sim.params.acts`)."""
    by_name = {f.name: f for f in fields(match.rules)}
    values = game.setup_values(match.setup)
    return any(acts(by_name[n], match.rules, values) for n in names)


@dataclass(frozen=True)
class Reach:
    """Where one variation of a parameter can be played: the contexts that accept it, split by whether it
    can change their games."""

    parameter: str
    overrides: dict
    acts: tuple[int, ...]       # indices into differential_contexts(game)
    idle: tuple[int, ...]


@functools.cache
def reach(game) -> tuple[Reach, ...]:
    """Every variation (:func:`variations`) with the contexts (:func:`differential_contexts`) it can be played
    in; a variation that moves a second parameter acts where either does. A context whose rules already have
    the variation's values (``survive = true`` in a Survive! game) is in neither list: nothing is varied there."""
    ctx = differential_contexts(game)
    plain = [c.resolve(game).rules for c in ctx]
    out = []
    for over in variations(game)[0]:
        acts_in, idle = [], []
        for i, c in enumerate(ctx):
            m = c.resolve(game, over)
            if m is not None and m.rules != plain[i]:
                (acts_in if acting(game, m, over) else idle).append(i)
        out.append(Reach(next(iter(over)), over, tuple(acts_in), tuple(idle)))
    return tuple(out)


def _spread(ctx: tuple[Context, ...], choices: list[tuple[int, int]], plan: list[list[int]],
            offset: int) -> tuple[int, int]:
    """The (variation, context) of ``choices`` to add: the variation with the fewest contexts yet, then the rule
    preset and the bots played least so far by this parameter, then a rotation by parameter."""
    rules = Counter(ctx[i].rules for p in plan for i in p)
    bots = Counter(ctx[i].bots for p in plan for i in p)
    return min(choices, key=lambda vc: (len(plan[vc[0]]), rules[ctx[vc[1]].rules], bots[ctx[vc[1]].bots],
                                        (vc[1] - offset) % len(ctx)))


def fast_cases(game) -> list[tuple[dict[str, Any], tuple[int, ...]]]:
    """(overrides, contexts) of the fast differential: every variation of every parameter, in as few contexts
    as cover, for each parameter, every kind of game it can change (:class:`Context` ``kind``), every rule
    preset and both kinds of bots it can change games under, each variation in one context at least.

    A parameter that a core ignores or derives from another (right for the presets, wrong for an override)
    then differs in the first game it acts in, in every kind of game where it does (``team_vp_target`` in a
    Teams game, ``explorer_mansions`` with three players on the Explorer board); :func:`coverage` is what the
    tests hold it to."""
    ctx = differential_contexts(game)
    found = reach(game)
    out: list[tuple[dict[str, Any], tuple[int, ...]]] = []
    names = [f.name for f in fields(game.resolve().rules)]
    for n, name in enumerate(names):
        mine = [r for r in found if r.parameter == name]
        plan: list[list[int]] = [[] for _ in mine]
        offset = 7 * n
        for attr in ("kind", "rules", "bots"):
            for value in dict.fromkeys(getattr(ctx[i], attr) for r in mine for i in r.acts):
                if any(getattr(ctx[i], attr) == value for p in plan for i in p):
                    continue
                v, i = _spread(ctx, [(v, i) for v, r in enumerate(mine) for i in r.acts
                                     if getattr(ctx[i], attr) == value], plan, offset)
                plan[v].append(i)
        for v, r in enumerate(mine):
            if not plan[v]:
                # a variation that acts nowhere is still played where it is accepted: both engines must agree
                v, i = _spread(ctx, [(v, i) for i in (r.acts or r.idle)], plan, offset)
                plan[v].append(i)
        out += [(r.overrides, tuple(sorted(p))) for r, p in zip(mine, plan)]
    return out


def coverage(game, cases: list[tuple[dict[str, Any], tuple[int, ...]]]) -> list[str]:
    """What ``cases`` leave out, one line each: a parameter with no case, or a kind of game, rule preset or bots
    a parameter can change games under (:func:`reach`) in which none of its cases plays where it acts."""
    ctx, found = differential_contexts(game), reach(game)
    where = {tuple(r.overrides.items()): set(r.acts) for r in found}
    missing = []
    for f in fields(game.resolve().rules):
        mine = [(over, played) for over, played in cases if next(iter(over)) == f.name]
        if not mine:
            missing.append(f"{f.name}: no case")
            continue
        can = [i for r in found if r.parameter == f.name for i in r.acts]
        does = [i for over, played in mine for i in played if i in where.get(tuple(over.items()), ())]
        if not can:
            missing.append(f"{f.name}: changes no game in any context (its relevant declaration matches none)")
        for attr in ("kind", "rules", "bots"):
            for value in sorted({getattr(ctx[i], attr) for i in can} - {getattr(ctx[i], attr) for i in does}):
                missing.append(f"{f.name}: no case where it acts in {attr} {value}")
    return missing


def idle_cases(game) -> list[tuple[dict[str, Any], int]]:
    """(overrides, context) for each parameter declared ``relevant`` somewhere only, and each kind of game with
    a context that accepts one of its variations where it cannot act: the tests play it there and expect the
    same games as without it (a declaration too narrow for the engine shows there)."""
    ctx, found = differential_contexts(game), reach(game)
    out = []
    for n, name in enumerate(f.name for f in fields(game.resolve().rules)):
        mine = [r for r in found if r.parameter == name and r.idle]
        for kind in dict.fromkeys(ctx[i].kind for r in mine for i in r.idle):
            choices = [(r.overrides, i) for r in mine for i in r.idle if ctx[i].kind == kind]
            out.append(choices[n % len(choices)])
    return out


def both_engines(game) -> tuple[str, ...]:
    """The game's result tables both engines write: all but the core's win_prob (sim/kit/winprob.py) and
    kingmaking (sim/kit/kingmaking.py: the core's paused games, 3 or more sides only)."""
    from sim.kit import kingmaking, winprob
    return tuple(t for t in game.schemas if t not in (winprob.TABLE, kingmaking.TABLE))


def first_difference(match, seed: int, start: int, count: int) -> str | None:
    """Where the core's games ``start .. start+count-1`` first differ from the reference engine's (the game and
    the columns), None when every table is equal record for record."""
    return table_difference(match.play_batch(seed, start, count, "core"),
                            match.play_batch(seed, start, count, "reference"), match.tables)


def table_difference(core: dict, ref: dict, tables) -> str | None:
    """Where two engines' ``{table: Arrow table}`` first differ, record for record; None when equal."""
    for table in tables:
        a, b = core[table].to_pylist(), ref[table].to_pylist()
        if len(a) != len(b):
            return f"{table}: {len(a)} core rows, {len(b)} reference rows"
        for x, y in zip(a, b):
            if x != y:
                cols = {k: (x.get(k), y.get(k)) for k in x if x.get(k) != y.get(k)}
                where = f"game {x.get('game_index')}" if "game_index" in x else "a row"
                return f"{table}, {where}: core != reference on {cols}"
    return None


def check_variation(game, overrides: dict[str, Any], seed: int, games: int,
                    only: tuple[int, ...] | None = None) -> list[str]:
    """Play ``overrides`` on both engines in every context of :func:`differential_contexts` (or the contexts of
    indices ``only``), ``games`` games in each (every table the game writes); the differences found, one line
    each. A context whose own preset refuses the overrides is skipped; ValueError when every one does."""
    found, played = [], 0
    for i, c in enumerate(differential_contexts(game)):
        if only is not None and i not in only:
            continue
        match = c.resolve(game, overrides, tables=both_engines(game))
        if match is None:
            continue
        played += 1
        if (diff := first_difference(match, seed, 1000 * i, games)) is not None:
            found.append(f"{game.name} {overrides} in {c.label}: {diff}")
    if not played:
        raise ValueError(f"{game.name} {overrides}: no context accepts it")
    return found


def check_idle(game, overrides: dict[str, Any], context: int, seed: int, games: int) -> str | None:
    """Where ``overrides``, played in context ``context`` where they cannot act (:func:`idle_cases`), first
    change a game the core plays without them (the parameter columns aside), or differ between the engines
    (the first 2 games); None when neither happens."""
    c = differential_contexts(game)[context]
    tables = both_engines(game)
    over, plain = c.resolve(game, overrides, tables), c.resolve(game, {}, tables)
    if (diff := first_difference(over, seed, 1000 * context, min(games, 2))) is not None:
        return f"{game.name} {overrides} in {c.label}: {diff}"
    params = {f.name for f in fields(over.rules)}

    def played(match) -> dict:
        out = match.play_batch(seed, 1000 * context, games, "core")
        return {t: out[t].drop_columns([n for n in out[t].column_names if n in params]) for t in tables}
    if (diff := table_difference(played(over), played(plain), tables)) is not None:
        return (f"{game.name} {overrides} in {c.label}, where its declaration says it cannot change a game: "
                f"{diff.replace('core != reference', 'with it != without it')}")
    return None


# ---- the contract every game keeps, as functions a game's own tests call ------------------------------------
# (pgx ships its API test as pgx.v1_api_test; OpenSpiel loops its random-simulation test over every game): a new
# game's package calls ``check_game(GAMES["mygame"])`` in its tests, or each check on its own, and assumes no
# module path or input name. The checks that need the query layer or the CLI stay in tests/test_game_contract.py.

class ContractError(AssertionError):
    """A game breaks the contract; the message names the game and what is wrong."""


def _need(game, ok: bool, what: str) -> None:
    if not ok:
        raise ContractError(f"{game.name}: {what}")


def check_declaration(game) -> None:
    """The class declares what a game is: title, presets (its default among them), setup values, data files,
    result tables ("games" first), end reasons of known winner rules, outcome columns among the record's."""
    from sim.games import WINNER_RULES, required_attributes
    missing = [a for a in required_attributes() if not hasattr(type(game), a)]
    _need(game, not missing, f"does not declare {', '.join(missing)}")
    _need(game, bool(game.title and game.presets) and game.default_preset in game.rule_presets,
          "a title and rule presets, its default preset among them")
    _need(game, list(game.schemas)[:1] == ["games"] and bool(game.setup_keys and game.data_keys),
          "a games table first, setup values and data files")
    _need(game, set(game.end_reasons.values()) <= set(WINNER_RULES),
          f"end reasons whose winner rule is one of {', '.join(WINNER_RULES)}")
    _need(game, bool(game.outcome_columns) and set(game.outcome_columns) <= set(game.schemas["games"].names),
          "outcome columns that are record columns")


def check_presets(game) -> None:
    """Every rule preset and every bench configuration resolves; the default resolves with one value per setup key
    and one entry per data file."""
    from sim.games import Match
    for name, rules in game.rule_presets.items():
        m = game.resolve(rules=name)
        _need(game, isinstance(m, Match) and m.game == game.name and m.rules == rules, f"preset {name} resolves")
    default = game.resolve()
    _need(game, default.tables == ("games",) and default.describe()["setup"].keys() == set(game.setup_keys),
          "the default configuration describes every setup value")
    _need(game, [key for key, _ in game.data_files(default.data)] == list(game.data_keys), "one file per data key")
    labels = [p.label for p in game.bench_presets]
    _need(game, game.bench_profiled in labels and len(set(labels)) == len(labels), "bench labels unique, profiled")
    for p in game.bench_presets:
        game.resolve(p.rules, p.overrides, p.setup)


def check_columns(game) -> None:
    """Every result column has a meaning, and no meaning names a column the table does not have."""
    for table, schema in game.schemas.items():
        meanings = game.column_meanings(table)
        _need(game, list(meanings) == schema.names, f"{table}: a meaning per column, in order")
        blank = [c for c, text in meanings.items() if not text.strip()]
        _need(game, not blank, f"{table}: columns without a meaning: {', '.join(blank)}")
        stale = sorted(set(game.column_docs.get(table, {})) - set(schema.names))
        _need(game, not stale, f"{table}: meanings of columns it does not have: {', '.join(stale)}")


def check_unknown_keys(game) -> None:
    """An unknown setup value, data file or result table is refused in one line naming the valid ones."""
    for kind, given, what, valid in (("setup", {"no_such_value": 1}, "setup value", game.setup_keys),
                                     ("data", {"no_such_file": "x.toml"}, "data file", game.data_keys),
                                     ("tables", ("games", "no_such_table"), "result table", game.schemas)):
        key = next(k for k in given if k.startswith("no_such"))
        try:
            game.resolve(**{kind: given}, where="here")
        except RuleError as e:
            want = f"here: unknown {game.name} {what} {key!r}; valid: {', '.join(valid)}"
            _need(game, str(e) == want, f"refusing an unknown {what}: {e!s} (expected {want!r})")
        else:
            raise ContractError(f"{game.name}: an unknown {what} was accepted")


def check_engines_agree(game, games: int = 300, seed: int = 20240601) -> None:
    """The core and the reference engine play the same records, table for table, in the default configuration;
    one game played alone is its batch's."""
    tables = both_engines(game)
    m = game.resolve(tables=tables)
    core, ref = m.play_batch(seed, 0, games, "core"), m.play_batch(seed, 0, games, "reference")
    _need(game, list(core) == list(ref) == list(tables), "both engines return every table")
    for table in tables:
        _need(game, core[table].schema == ref[table].schema == game.schemas[table], f"{table}: the declared schema")
    _need(game, (diff := table_difference(core, ref, tables)) is None, f"core != reference: {diff}")
    _need(game, m.play_one(seed, 17) == core["games"].slice(17, 1).to_pylist()[0], "game 17 alone is game 17")


WITH_EVERY_TABLE = 100     # check_records' games played with every result table (some, e.g. kingmaking, cost much more)


def check_records(game, games: int = 3000, seed: int = 20240601) -> None:
    """Over the core's games of the default configuration: the game index runs in order, every record is of this
    game and seed, the winner agrees with the end reason, and every per-seat list has one value per seat; and
    asking for every result table changes no game (the first games played with all of them keep the same records)."""
    m = game.resolve()
    t = m.play_batch(seed, 0, games, "core")["games"]
    _need(game, t.num_rows == games and t.schema == game.schemas["games"], "the games table of the declared schema")
    few = min(games, WITH_EVERY_TABLE)
    every = game.resolve(tables=tuple(game.schemas)).play_batch(seed, 0, few, "core")
    _need(game, set(every) == set(game.schemas) and every["games"].equals(t.slice(0, few)),
          "every result table asked for, and the games the same records as with the games table alone")
    _need(game, t.column("game_index").to_pylist() == list(range(games)), "game indices in order")
    _need(game, set(t.column("seed").to_pylist()) == {seed} and set(t.column("game").to_pylist()) == {game.name},
          "every record of this seed and game")
    _need(game, set(t.column("data_digest").to_pylist()) == {m.data_digest}, "every record of these card data")
    columns = game.per_seat_columns
    _need(game, bool(columns) and set(columns) <= set(game.schemas["games"].names), "per-seat columns declared")
    for rec in t.to_pylist():
        where = f"game {rec['game_index']}"
        rule = game.end_reasons.get(rec["end_reason"])
        _need(game, rule is not None, f"{where}: undeclared end reason {rec['end_reason']!r}")
        w = game.winner(rec)
        _need(game, {"winner": w >= 0, "none": w == -1, "either": w >= -1}[rule],
              f"{where}: end reason {rec['end_reason']} ({rule}) with winner {w}")
        _need(game, w < rec[game.seats_column], f"{where}: winner {w} beyond the seats")
        _need(game, game.result_line(rec).startswith(f"{rec['end_reason']}, "), f"{where}: the result line")
        seats = rec[game.seats_column]
        for c in columns:
            values = rec[c]
            _need(game, isinstance(values, list), f"{where}: per-seat column {c} = {values!r} is not a list")
            per_round = values and isinstance(values[0], list)     # a list of lists: per round, then per seat
            lengths = {len(v) for v in values} if per_round else {len(values)}
            _need(game, lengths <= {seats}, f"{where}: {c} = {values} for {seats} seats")


def check_parameters(game) -> None:
    """Every rule parameter has a value away from its default that the rule set accepts (so the generated
    differential configurations cover it: :func:`variations`)."""
    _, stuck = variations(game)
    _need(game, not stuck, f"no value away from the default is accepted for {', '.join(stuck)}")


def check_relevance(game) -> None:
    """Every ``relevant`` declaration names the game's setup values (values some differential context plays) or
    its other rule parameters, and the fast differential cases play every parameter in every kind of game, rule
    preset and bots it can change (:func:`coverage` of :func:`fast_cases`)."""
    params = {f.name: f for f in fields(game.resolve().rules)}
    seen: dict[str, set] = {}
    for c in differential_contexts(game):
        for key, value in game.setup_values(c.resolve(game).setup).items():
            seen.setdefault(key, set()).add(tuple(value) if isinstance(value, list) else value)
    for f in params.values():
        for condition in f.metadata.get("relevant") or ():
            for key, values in condition.items():
                _need(game, key in game.setup_keys or key in params and key != f.name,
                      f"{f.name}: relevant names {key!r}, neither a setup value nor another rule parameter")
                if key in game.setup_keys and isinstance(values, (tuple, list, set, frozenset)):
                    unplayed = [v for v in values if v not in seen.get(key, ())]
                    _need(game, not unplayed, f"{f.name}: relevant {key} {unplayed}: no differential context plays it")
    missing = coverage(game, fast_cases(game))
    _need(game, not missing, "the fast differential cases leave out " + "; ".join(missing))


CHECKS = (check_declaration, check_presets, check_columns, check_unknown_keys, check_parameters, check_relevance,
          check_engines_agree, check_records)


def check_game(game) -> None:
    """Every check of the contract (:data:`CHECKS`) on ``game``; the first broken one is a ContractError."""
    for check in CHECKS:
        check(game)
