# cython: language_level=3
"""Paws in Peril engine core: plays whole batches of games in C with the GIL released.

The rules live in the ``core/paws/*.pxi`` files, one per rulebook section, each mirroring its module
in ``sim/paws/``; this module holds the batch loop and its typed column buffers. Use it through
``sim.paws.core_engine`` (which validates parameters and builds the Arrow table).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset

import numpy as np

from core.paws_types cimport *
from core.rng cimport pcg32_below, pcg32_die, pcg32_for_game, pcg32_t


ctypedef struct Trace:
    int8_t* data
    size_t n
    size_t cap
    int failed


cdef inline void trace_push(Trace* t, int v) noexcept nogil:
    cdef int8_t* grown
    if t.n == t.cap:
        grown = <int8_t*>realloc(t.data, t.cap * 2)
        if grown == NULL:
            t.failed = 1
            return
        t.data = grown
        t.cap *= 2
    t.data[t.n] = <int8_t>v
    t.n += 1


include "paws/script.pxi"
include "paws/common.pxi"
include "paws/items.pxi"
include "paws/combat.pxi"
include "paws/knockout.pxi"
include "paws/winning.pxi"
include "paws/loot.pxi"
include "paws/invade.pxi"
include "paws/raid.pxi"
include "paws/actions.pxi"
include "paws/turn.pxi"
include "paws/heuristic.pxi"
include "paws/game.pxi"


WEIGHT_FIELDS = ("aggression", "heal_threshold", "raid_appetite", "invade_min_hp", "home_min_hp",
                 "mansion_min_hp", "escape_hp", "step_cost")
END_REASONS = ("vp", "last_alive", "round_limit", "stalled")
LIMITS = {"players": MAXP, "cells": MAXC, "item_copies": MAXCARDS, "monster_copies": MAXMON}


def play_batch(dict rules, bint explorer, bint teams, int players, list bots, list items, list monsters,
               list item_deck, list monster_deck, list nbrs, uint64_t master_seed, int64_t start, int64_t count):
    """Play games start..start+count-1; returns a dict of numpy columns (see sim.paws.core_engine).

    rules: {name: int} for every Rules field; bots: [(kind, {weight: int})] per seat; items:
    [(timing, effect, amount, turns)] by id; monsters: [(hp, buff, amount)] by id; item_deck,
    monster_deck: card ids before shuffling; nbrs: neighbours[cell][6] of the board geometry.
    """
    cdef Game* g = <Game*>malloc(sizeof(Game))
    cdef ItemSpec* ispec = <ItemSpec*>malloc(sizeof(ItemSpec) * max(1, len(items)))
    cdef MonsterSpec* mspec = <MonsterSpec*>malloc(sizeof(MonsterSpec) * max(1, len(monsters)))
    cdef int16_t ideck[MAXCARDS]
    cdef int16_t mdeck[MAXMON]
    cdef int n_ideck = len(item_deck), n_mdeck = len(monster_deck)
    cdef Trace trace
    cdef int64_t i, k
    if g == NULL or ispec == NULL or mspec == NULL:
        free(g); free(ispec); free(mspec)
        raise MemoryError()
    try:
        if n_ideck > MAXCARDS or n_mdeck > MAXMON:
            raise ValueError(f"beyond the core's capacity: {LIMITS}")
        _configure(g, ispec, mspec, rules, explorer, teams, players, bots, items, monsters, nbrs)
        for k in range(n_ideck):
            ideck[k] = item_deck[k]
        for k in range(n_mdeck):
            mdeck[k] = monster_deck[k]

        first_seat = np.empty(count, np.int8)
        winner_seat = np.empty(count, np.int8)
        winner_team = np.empty(count, np.int8)
        end_reason = np.empty(count, np.int8)
        rounds = np.empty(count, np.int16)
        turns = np.empty(count, np.int32)
        building_fights = np.empty(count, np.int32)
        invasions = np.empty(count, np.int32)
        raids = np.empty(count, np.int32)
        items_played = np.empty(count, np.int32)
        errors = np.zeros(count, np.int8)
        seat_cols = {name: np.empty(count * players, np.int8)
                     for name in ("vp", "buildings", "lives", "knockouts", "knockouts_dealt")}
        cdef_views = _Views(first_seat, winner_seat, winner_team, end_reason, rounds, turns, building_fights,
                            invasions, raids, items_played, errors, seat_cols["vp"], seat_cols["buildings"],
                            seat_cols["lives"], seat_cols["knockouts"], seat_cols["knockouts_dealt"])
        trace.cap = 1 << 16
        trace.n = 0
        trace.failed = 0
        trace.data = <int8_t*>malloc(trace.cap)
        if trace.data == NULL:
            raise MemoryError()
        try:
            _run(g, cdef_views, &trace, ideck, n_ideck, mdeck, n_mdeck, master_seed, start, count)
            if trace.failed:
                raise MemoryError("standings trace")
            vp_trace = np.frombuffer((<char*>trace.data)[:trace.n], dtype=np.int8).copy() if trace.n else \
                np.empty(0, np.int8)
        finally:
            free(trace.data)
    finally:
        free(g)
        free(ispec)
        free(mspec)
    out = dict(first_seat=first_seat, winner_seat=winner_seat, winner_team=winner_team, end_reason=end_reason,
               rounds=rounds, turns=turns, building_fights=building_fights, invasions=invasions, raids=raids,
               items_played=items_played, errors=errors, vp_trace=vp_trace)
    out.update(seat_cols)
    return out


cdef _configure(Game* g, ItemSpec* ispec, MonsterSpec* mspec, dict rules, bint explorer, bint teams,
                int players, list bots, list items, list monsters, list nbrs):
    """Fill the parts of ``g`` that stay fixed over a batch: rules, board geometry, bots, card data."""
    cdef int s, c, d, k
    if len(nbrs) > MAXC or players > MAXP:
        raise ValueError(f"beyond the core's capacity: {LIMITS}")
    g.r = rules
    g.n = players
    g.explorer = explorer
    g.teams = teams
    g.ncells = len(nbrs)
    g.dist_valid = 0
    g.script = NULL
    for c in range(g.ncells):
        for d in range(6):
            g.nbrs[c][d] = nbrs[c][d]
    for s in range(players):
        kind, weights = bots[s]
        g.bots[s].kind = kind
        if weights:
            g.bots[s].w = weights
    for k, spec in enumerate(items):
        ispec[k].timing, ispec[k].effect, ispec[k].amount, ispec[k].turns = spec
    for k, spec in enumerate(monsters):
        mspec[k].hp, mspec[k].buff, mspec[k].amount = spec
    g.items = ispec
    g.mons = mspec


cdef class _Views:
    """Typed views of the output columns, so the game loop writes them without the GIL."""
    cdef int8_t[::1] first_seat, winner_seat, winner_team, end_reason, errors
    cdef int16_t[::1] rounds
    cdef int32_t[::1] turns, building_fights, invasions, raids, items_played
    cdef int8_t[::1] vp, buildings, lives, knockouts, knockouts_dealt

    def __init__(self, first_seat, winner_seat, winner_team, end_reason, rounds, turns, building_fights,
                 invasions, raids, items_played, errors, vp, buildings, lives, knockouts, knockouts_dealt):
        self.first_seat, self.winner_seat, self.winner_team = first_seat, winner_seat, winner_team
        self.end_reason, self.rounds, self.turns = end_reason, rounds, turns
        self.building_fights, self.invasions, self.raids = building_fights, invasions, raids
        self.items_played, self.errors = items_played, errors
        self.vp, self.buildings, self.lives = vp, buildings, lives
        self.knockouts, self.knockouts_dealt = knockouts, knockouts_dealt


cdef void _run(Game* g, _Views v, Trace* trace, const int16_t* ideck, int n_ideck, const int16_t* mdeck,
               int n_mdeck, uint64_t master_seed, int64_t start, int64_t count):
    cdef int64_t i
    cdef int s, n = g.n
    cdef int8_t[::1] first_seat = v.first_seat, winner_seat = v.winner_seat, winner_team = v.winner_team
    cdef int8_t[::1] end_reason = v.end_reason, errors = v.errors
    cdef int16_t[::1] rounds = v.rounds
    cdef int32_t[::1] turns = v.turns, building_fights = v.building_fights, invasions = v.invasions
    cdef int32_t[::1] raids = v.raids, items_played = v.items_played
    cdef int8_t[::1] vps = v.vp, buildings = v.buildings, lives = v.lives
    cdef int8_t[::1] knockouts = v.knockouts, knockouts_dealt = v.knockouts_dealt
    with nogil:
        for i in range(count):
            pcg32_for_game(&g.rng, master_seed, <uint64_t>(start + i))
            setup_game(g, mdeck, n_mdeck, ideck, n_ideck)
            while not g.over and not g.error:
                play_round(g, trace)
            first_seat[i] = g.first_seat
            winner_seat[i] = g.winner_seat
            winner_team[i] = g.winner_team
            end_reason[i] = g.end_reason
            rounds[i] = g.round
            turns[i] = g.turns
            building_fights[i] = g.building_fights
            invasions[i] = g.invasions
            raids[i] = g.raids
            items_played[i] = g.items_played
            errors[i] = g.error
            for s in range(n):
                vps[i * n + s] = vp(g, s)
                buildings[i * n + s] = owned(g, s)
                lives[i * n + s] = g.players[s].lives
                knockouts[i * n + s] = g.players[s].knockouts
                knockouts_dealt[i * n + s] = g.players[s].knockouts_dealt


# -- scenario bridge (tests only) ---------------------------------------------------------------------
FIGHT_KINDS = ("monster", "invasion", "raid")
SECTION_FUNCTIONS = ("setup_game", "start_turn", "take_turn", "legal_actions", "apply_action", "loot",
                     "lootable", "claim_building", "raid", "raid_targets", "invade", "invadable", "knock_out",
                     "fight", "turn_card_options", "attackable", "check_vp", "check_round_end", "play_round")


cdef str _kept_sets_wrong(Game* g):
    """Where n_owned, owned_by, bricked and barricaded(_by), which set_owner, set_brick and
    set_barricade keep in step with owner, brick and barricade, disagree with them; None if nowhere."""
    cdef int c, s
    cdef int count[MAXP]
    for s in range(MAXP):
        count[s] = 0
    for c in range(g.ncells):
        if g.owner[c] != NOBODY:
            count[g.owner[c]] += 1
        for s in range(-1, MAXP):
            if cells_has(&g.owned_by[s + 1], c) != (g.owner[c] == s):
                return f"owned_by[{s + 1}] at cell {c}"
        if cells_has(&g.bricked, c) != (g.brick[c] != NOBODY):
            return f"bricked at cell {c}"
        if cells_has(&g.barricaded, c) != (g.barricade[c] != NOBODY):
            return f"barricaded at cell {c}"
        for s in range(MAXP):
            if cells_has(&g.barricaded_by[s], c) != (g.barricade[c] == s):
                return f"barricaded_by[{s}] at cell {c}"
    for s in range(MAXP):
        if count[s] != g.n_owned[s]:
            return f"n_owned[{s}] = {g.n_owned[s]}, owner[] says {count[s]}"
    return None


cdef class CoreScenario:
    """Runs one section function of the core on a reference-engine game state, with a scripted draw queue.

    The rulebook scenario tests (tests/paws/core_scenario.py) build a ``sim.paws.state.Game``; ``run``
    loads its whole state into the C struct, runs the named function with ``g.script`` set (script.pxi),
    and writes the state back into the same Python objects, so the same assertions check both engines.
    ``inputs`` are ``sim.paws.core_engine.core_inputs(...)`` for that game's setup, rules and cards.
    """
    cdef Game* g
    cdef ItemSpec* ispec
    cdef MonsterSpec* mspec
    cdef Script* script
    cdef int16_t ideck[MAXCARDS]      # unshuffled decks, for setup_game
    cdef int16_t mdeck[MAXMON]
    cdef int n_ideck, n_mdeck

    def __cinit__(self, dict inputs):
        cdef int k
        self.g = <Game*>malloc(sizeof(Game))
        self.ispec = <ItemSpec*>malloc(sizeof(ItemSpec) * max(1, len(inputs["items"])))
        self.mspec = <MonsterSpec*>malloc(sizeof(MonsterSpec) * max(1, len(inputs["monsters"])))
        self.script = <Script*>malloc(sizeof(Script))
        if self.g == NULL or self.ispec == NULL or self.mspec == NULL or self.script == NULL:
            raise MemoryError()
        memset(self.g, 0, sizeof(Game))
        memset(self.script, 0, sizeof(Script))
        self.n_ideck, self.n_mdeck = len(inputs["item_deck"]), len(inputs["monster_deck"])
        if self.n_ideck > MAXCARDS or self.n_mdeck > MAXMON:
            raise ValueError(f"beyond the core's capacity: {LIMITS}")
        for k in range(self.n_ideck):
            self.ideck[k] = inputs["item_deck"][k]
        for k in range(self.n_mdeck):
            self.mdeck[k] = inputs["monster_deck"][k]
        _configure(self.g, self.ispec, self.mspec, inputs["rules"], inputs["explorer"], inputs["teams"],
                   inputs["players"], inputs["bots"], inputs["items"], inputs["monsters"], inputs["nbrs"])

    def __dealloc__(self):
        free(self.g)
        free(self.ispec)
        free(self.mspec)
        free(self.script)

    def run(self, game, str name, tuple args, list script):
        """Run section function ``name`` on ``game``'s state; returns (its result, the script report).

        script: (kind, x, y, a, b, c) per entry, kind S_DIE (x: value), S_PICK (x: n, y: result) or
        S_ASK (x: seat, y: decision kind, (a, b, c): the option). The report says how many entries were
        used, the options of each decision asked, the first draw or decision that did not match, and
        each seat's VP as the core counts it.
        """
        cdef Game* g = self.g
        cdef Script* s = self.script
        cdef int i
        if name not in SECTION_FUNCTIONS:
            raise ValueError(f"no section function {name!r} in the core; known: {', '.join(SECTION_FUNCTIONS)}")
        if len(script) > MAXSCRIPT:
            raise ValueError(f"a script of {len(script)} entries; the core takes at most {MAXSCRIPT}")
        self._load(game)
        s.n = len(script)
        s.used = s.failed = s.junk = s.n_seen = 0
        for i, (kind, x, y, a, b, c) in enumerate(script):
            s.entries[i].kind, s.entries[i].x, s.entries[i].y = kind, x, y
            s.entries[i].opt[0], s.entries[i].opt[1], s.entries[i].opt[2] = a, b, c
            s.seen_at[i] = -1
        g.script = s
        try:
            result = self._call(name, args)
        finally:
            g.script = NULL
        if g.error and not s.failed:
            raise RuntimeError(f"{name}: a decision had more options than the core's capacity")
        bad = _kept_sets_wrong(g)
        if bad is not None:
            raise AssertionError(f"{name}: the core's kept owner/brick/barricade sets are wrong: {bad}")
        self._store(game)
        seen = {i: [tuple(s.seen[k]) for k in range(s.seen_at[i], s.seen_at[i] + s.seen_n[i])]
                for i in range(s.used) if s.seen_at[i] >= 0}
        failed = None
        if s.failed:
            failed = dict(kind=s.failed - 1, x=s.failed_x, y=s.failed_y, options=None if s.failed_n_seen < 0 else
                          [tuple(s.seen[k]) for k in range(s.failed_seen, s.failed_seen + s.failed_n_seen)])
        return result, dict(used=s.used, seen=seen, failed=failed, vp=[vp(g, i) for i in range(g.n)])

    cdef object _call(self, str name, tuple args):
        cdef Game* g = self.g
        cdef Fight f
        cdef Trace trace
        cdef int k
        if name == "setup_game":
            setup_game(g, self.mdeck, self.n_mdeck, self.ideck, self.n_ideck)
        elif name == "start_turn":
            return bool(start_turn(g, args[0]))
        elif name == "take_turn":
            take_turn(g, args[0])
        elif name == "legal_actions":
            return self._actions(args[0], g.ap)
        elif name == "apply_action":
            apply_action(g, args[0], args[1], args[2], args[3])
        elif name == "loot":
            loot(g, args[0])
        elif name == "lootable":
            return (A_LOOT, -1, -1) in self._actions(args[0], max(1, g.ap))
        elif name == "claim_building":
            claim_building(g, args[0], args[1])
        elif name == "raid":
            raid(g, args[0], args[1])
        elif name == "raid_targets":
            return [a for kind, a, _ in self._actions(args[0], max(1, g.ap)) if kind == A_RAID]
        elif name == "invade":
            invade(g, args[0])
        elif name == "invadable":
            return (A_INVADE, -1, -1) in self._actions(args[0], max(1, g.ap))
        elif name == "knock_out":
            knock_out(g, args[0], args[1], args[2])
        elif name == "fight":  # (fight object, (dice, dice), (edge, edge), max_rolls, grabs)
            py_f, dice, edge, max_rolls, grabs = args
            fight_init(&f, FIGHT_KINDS.index(py_f.kind), py_f.seats[0], py_f.seats[1], py_f.monster_hp)
            f.roll, f.attacker, f.escaped = py_f.roll, py_f.attacker, py_f.escaped
            for k in range(2):
                f.bonus[k], f.roll_bonus[k], f.reflect[k] = py_f.bonus[k], py_f.roll_bonus[k], py_f.reflect[k]
            ko = fight(g, &f, dice[0], dice[1], edge[0], edge[1], max_rolls, grabs)
            py_f.roll, py_f.attacker, py_f.escaped, py_f.monster_hp = f.roll, f.attacker, f.escaped, f.monster_hp
            py_f.bonus[:], py_f.roll_bonus[:], py_f.reflect[:] = list(f.bonus), list(f.roll_bonus), list(f.reflect)
            return ko
        elif name == "turn_card_options":
            return [(a, b) for kind, a, b in self._actions(args[0], g.ap) if kind == A_PLAY_ITEM]
        elif name == "attackable":
            return bool(attackable(g, args[0], args[1]))
        elif name == "check_vp":
            check_vp(g, args[0])
        elif name == "check_round_end":
            check_round_end(g)
        elif name == "play_round":  # returns the round's standings row (the reference appends it to g.trace)
            trace.cap = 64
            trace.n = trace.failed = 0
            trace.data = <int8_t*>malloc(trace.cap)
            if trace.data == NULL:
                raise MemoryError()
            try:
                play_round(g, &trace)
                return [trace.data[k] for k in range(trace.n)]
            finally:
                free(trace.data)
        return None

    cdef list _actions(self, int seat, int ap):
        """legal_actions with ``ap`` AP. The bridge reads lootable, invadable, raid_targets and
        turn_card_options off it (it lists LOOT iff lootable, INVADE iff invadable, a RAID per target
        and a PLAY_ITEM per turn card option) rather than calling them: a second call site would keep
        the C compiler from inlining them into the batch loop."""
        cdef Game* g = self.g
        cdef int k, kept = g.ap
        g.ap = ap
        legal_actions(g, seat)
        g.ap = kept
        return [(g.opt_a[k], g.opt_b[k], g.opt_c[k]) for k in range(g.n_opt)]

    cdef _load(self, game):
        """The whole state of a reference-engine Game into the struct (derived sets and distances too)."""
        cdef Game* g = self.g
        cdef Player* p
        cdef int c, s, i
        if game.n != g.n or len(game.tile) != g.ncells:
            raise ValueError("the game's players or board differ from this bridge's inputs")
        if len(game.monster_deck) > MAXMON or len(game.item_deck) + len(game.item_discard) > MAXCARDS:
            raise ValueError(f"beyond the core's capacity: {LIMITS}")
        clear_board(g)
        for c in range(g.ncells):
            g.tile[c] = game.tile[c]
            set_owner(g, c, game.owner[c])
            set_brick(g, c, game.brick[c])
            set_barricade(g, c, game.barricade[c])
        board_changed(g)
        for s in range(g.n):
            py_p, p = game.players[s], &g.players[s]
            if len(py_p.items) > MAXCARDS or len(py_p.monsters) > MAXMON or len(py_p.active) != len(py_p.monsters):
                raise ValueError(f"P{s}: beyond the core's capacity ({LIMITS}) or active[] not one per monster")
            p.hp, p.lives, p.pos, p.barricades = py_p.hp, py_p.lives, py_p.pos, py_p.barricades
            p.n_items = len(py_p.items)
            for i in range(p.n_items):
                p.items[i] = py_p.items[i]
            p.n_monsters = len(py_p.monsters)
            for i in range(p.n_monsters):
                p.monsters[i] = py_p.monsters[i]
                p.active[i] = py_p.active[i]
            for i in range(4):
                p.tiles[i] = py_p.tiles[i]
            p.knockout_vp, p.knockouts, p.knockouts_dealt = py_p.knockout_vp, py_p.knockouts, py_p.knockouts_dealt
            p.protected, p.poison_ticks, p.poisoner = py_p.protected, py_p.poison_ticks, py_p.poisoner
            for i in range(MAXP):
                p.snared[i] = py_p.snared[i] if i < g.n else 0
        g.n_monster_deck = len(game.monster_deck)
        for i in range(g.n_monster_deck):
            g.monster_deck[i] = game.monster_deck[i]
        g.n_item_deck = len(game.item_deck)
        for i in range(g.n_item_deck):
            g.item_deck[i] = game.item_deck[i]
        g.n_item_discard = len(game.item_discard)
        for i in range(g.n_item_discard):
            g.item_discard[i] = game.item_discard[i]
        g.first_seat, g.round, g.turns, g.seat = game.first_seat, game.round, game.turns, game.seat
        g.ap, g.building_fights_left, g.raids_left = game.ap, game.building_fights_left, game.raids_left
        g.fight = NULL
        g.over, g.winner_seat, g.winner_team = game.over, game.winner_seat, game.winner_team
        g.end_reason = END_REASONS.index(game.end_reason) if game.end_reason else -1
        g.building_fights, g.invasions, g.raids = game.building_fights, game.invasions, game.raids
        g.items_played = game.items_played
        g.error = 0
        g.look_ok = 0
        g.n_opt = 0

    cdef _store(self, game):
        """The struct's state back into the same Python objects (lists are filled in place)."""
        cdef Game* g = self.g
        cdef Player* p
        cdef int s
        game.tile[:] = [g.tile[c] for c in range(g.ncells)]
        game.owner[:] = [g.owner[c] for c in range(g.ncells)]
        game.brick[:] = [g.brick[c] for c in range(g.ncells)]
        game.barricade[:] = [g.barricade[c] for c in range(g.ncells)]
        for s in range(g.n):
            py_p, p = game.players[s], &g.players[s]
            py_p.hp, py_p.lives, py_p.pos, py_p.barricades = p.hp, p.lives, p.pos, p.barricades
            py_p.items[:] = [p.items[i] for i in range(p.n_items)]
            py_p.monsters[:] = [p.monsters[i] for i in range(p.n_monsters)]
            py_p.active[:] = [bool(p.active[i]) for i in range(p.n_monsters)]
            py_p.tiles[:] = [p.tiles[i] for i in range(4)]
            py_p.knockout_vp, py_p.knockouts, py_p.knockouts_dealt = p.knockout_vp, p.knockouts, p.knockouts_dealt
            py_p.protected, py_p.poison_ticks, py_p.poisoner = bool(p.protected), p.poison_ticks, p.poisoner
            py_p.snared[:] = [p.snared[i] for i in range(g.n)]
        game.monster_deck[:] = [g.monster_deck[i] for i in range(g.n_monster_deck)]
        game.item_deck[:] = [g.item_deck[i] for i in range(g.n_item_deck)]
        game.item_discard[:] = [g.item_discard[i] for i in range(g.n_item_discard)]
        game.first_seat, game.round, game.turns, game.seat = g.first_seat, g.round, g.turns, g.seat
        game.ap, game.building_fights_left, game.raids_left = g.ap, g.building_fights_left, g.raids_left
        game.fight = None
        game.over, game.winner_seat, game.winner_team = bool(g.over), g.winner_seat, g.winner_team
        game.end_reason = END_REASONS[g.end_reason] if g.end_reason >= 0 else ""
        game.building_fights, game.invasions, game.raids = g.building_fights, g.invasions, g.raids
        game.items_played = g.items_played
