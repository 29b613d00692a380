# cython: language_level=3
"""Paws in Peril core for tests only: the rules of the engine module with scripted draws.

Only the tests import this module (tests/paws/core_scenario.py, tests/test_paws_continue.py); the
service never does. It includes the same rule files as ``core.paws_engine`` but, in place of the
production draws, ``core/paws/script.pxi``: die(), below() and ask() of the same names that take a
rulebook scenario's scripted dice, picks and decisions while one is loaded. It holds the scenario bridge
(``CoreScenario``), the hook on continuable games (``PausedGame``) and the kit's trace writer
(``trace_bytes``).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc, realloc, calloc
from libc.string cimport memcpy, memset

import numpy as np

from libc.math cimport exp, log, sqrt

from core.kit.types cimport MAXFEAT, MAXHIDDEN, MAXKINDS, BatchOptions, Cells, DecisionTrace, Model, RowBuffer, Samples, Search, SearchNote, ValueTrace
from core.paws_types cimport *
from core.rng cimport (game_seed, pcg32_below, pcg32_pick, pcg32_die, pcg32_for_game, pcg32_next, pcg32_seed, pcg32_t,
                       splitmix64)


include "paws/script.pxi"
include "kit/lists.pxi"
include "kit/cells.pxi"
include "kit/rows.pxi"
include "kit/inputs.pxi"
include "kit/state.pxi"
include "kit/trace.pxi"
include "kit/search.pxi"
include "kit/learned.pxi"
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
include "paws/search.pxi"
include "paws/learned.pxi"
include "kit/winprob.pxi"
include "paws/inputs.pxi"


SCRIPT_KINDS = {"die": S_DIE, "pick": S_PICK, "ask": S_ASK}    # ScriptEntry.kind
SECTION_FUNCTIONS = ("setup_game", "start_turn", "take_turn", "legal_actions", "apply_action", "loot",
                     "lootable", "claim_building", "raid", "raid_targets", "invade", "invadable", "knock_out",
                     "fight", "turn_card_options", "attackable", "check_vp", "check_round_end", "play_round")


cdef class _Batch:
    """The fixed inputs of a batch in C: what a Game's card-spec pointers point to, and the decks."""
    cdef ItemSpec* ispec
    cdef MonsterSpec* mspec
    cdef Decks decks                  # unshuffled decks, for setup_game
    cdef dict inputs
    cdef object record_dtype          # the numpy twin of GameRecord (sim.paws.record.RECORD_DTYPE)

    def __cinit__(self, dict inputs):
        cdef int k
        self.inputs = inputs
        self.record_dtype = np.dtype(inputs["record_dtype"])
        if self.record_dtype.itemsize != sizeof(GameRecord):
            raise ValueError("the record dtype is not laid out like GameRecord")
        self.ispec = <ItemSpec*>malloc(sizeof(ItemSpec) * max(1, len(inputs["items"])))
        self.mspec = <MonsterSpec*>malloc(sizeof(MonsterSpec) * max(1, len(inputs["monsters"])))
        if self.ispec == NULL or self.mspec == NULL:
            raise MemoryError()
        load_decks(&self.decks, inputs)

    def __dealloc__(self):
        free(self.ispec)
        free(self.mspec)

    cdef object record_view(self, GameRecord* rec):
        """``rec`` as a one-row numpy array of the record dtype that aliases it: writes go to the struct.
        (Cython converts a struct to a dict, but an int8_t array there to bytes cut at the first 0.)"""
        cdef char[::1] raw = <char[:sizeof(GameRecord)]>(<char*>rec)
        return np.asarray(raw).view(self.record_dtype)

    cdef configure(self, Game* g):
        _configure(g, self.ispec, self.mspec, self.inputs)


# -- the hook on continuable games (core/paws/game.pxi play_from, core/kit/state.pxi copy_game) ----------
cdef class PausedGame:
    """One game of a batch played up to a top-level decision, to be copied and played on.

    ``PausedGame(inputs, master_seed, game_index, stop_at)`` sets the game up and plays it without the GIL
    until decision number ``stop_at`` (the next action of a turn) is to be taken, or to the end.
    ``copy()`` is an independent copy of the state (one memcpy); ``play_on(stop_at=-1)`` continues it.
    ``record()`` is its GameRecord (per-seat arrays in full) with "vp_trace", the standings rows so far.
    """
    cdef Game* g
    cdef RowBuffer trace
    cdef _Batch batch
    cdef readonly bint paused

    def __cinit__(self):
        self.g = <Game*>calloc(1, sizeof(Game))
        self.trace.data = NULL
        if self.g == NULL:
            raise MemoryError()
        rows_init(&self.trace, sizeof(Standings), 16)

    def __init__(self, dict inputs=None, uint64_t master_seed=0, int64_t game_index=0, int64_t stop_at=-1):
        cdef int s
        if inputs is None:  # copy() fills it
            return
        self.batch = _Batch(inputs)
        self.batch.configure(self.g)
        pcg32_for_game(&self.g.rng, master_seed, <uint64_t>game_index)
        for s in range(self.g.n):
            search_stream(&self.g.bots[s].rng, master_seed, <uint64_t>game_index, s)
        setup_game(self.g, self.batch.decks.mdeck, self.batch.decks.n_mdeck, self.batch.decks.ideck,
                   self.batch.decks.n_ideck)
        self.play_on(stop_at)

    def __dealloc__(self):
        if self.g != NULL:
            free_bot_models(self.g)
        free(self.g)
        rows_free(&self.trace)

    @property
    def seat(self):
        """The seat whose decision a paused game is at (NOBODY between turns)."""
        return self.g.seat

    @property
    def decisions(self):
        """Top-level decisions taken so far."""
        return self.g.decisions

    def copy(self):
        """An independent copy: the same state, generator and standings rows so far."""
        cdef PausedGame c = PausedGame()
        copy_game(c.g, self.g)
        own_bot_models(c.g)             # the copy's networks are its own (freed with it)
        c.batch = self.batch
        c.paused = self.paused
        rows_free(&c.trace)
        rows_init(&c.trace, self.trace.row_size, self.trace.n + 16)
        memcpy(c.trace.data, self.trace.data, self.trace.n * self.trace.row_size)
        c.trace.n = self.trace.n
        return c

    def play_on(self, int64_t stop_at=-1):
        """Play on from the state, until decision ``stop_at`` or (-1) to the end; True if it stopped there."""
        cdef bint paused
        self.g.stop_at = stop_at
        with nogil:
            paused = play_from(self.g, &self.trace)
        self.paused = paused
        return paused

    def options(self):
        """The options of the decision a paused game is at, as (Action, a, b) triples (legal_actions)."""
        cdef int k
        if not self.paused:
            raise ValueError("the game is not paused at a decision")
        legal_actions(self.g, self.g.seat)
        return [(self.g.opt_a[k], self.g.opt_b[k], self.g.opt_c[k]) for k in range(self.g.n_opt)]

    def take(self, int choice):
        """Take option ``choice`` of options() as the paused decision (take_option), instead of the bot."""
        opts = self.options()
        if not 0 <= choice < len(opts):
            raise ValueError(f"option {choice} of {len(opts)}")
        take_option(self.g, choice)
        self.paused = False

    def search_choice(self, uint64_t bot_seed):
        """The option of options() that the paused seat's search bot picks, its own stream seeded from
        ``bot_seed`` (search_decide, core/paws/search.pxi); the game is left as it was."""
        cdef int seat, choice
        self.options()
        seat = self.g.seat
        if self.g.bots[seat].kind < BOT_MCTS:
            raise ValueError(f"seat {seat} has no search bot")
        pcg32_seed(&self.g.bots[seat].rng, bot_seed, 1)
        with nogil:
            choice = search_decide(self.g, seat)
        return choice

    def learned_features(self):
        """The learned bots' features at the paused decision (learned.pxi): (one list per listed option for
        the paused seat, one list per seat)."""
        self.options()
        return learned_features_at(self.g, N_POLICY, N_VALUE)

    def learned_scores(self):
        """The paused seat's model at the paused decision (learned.pxi): (its policy's score of each listed
        option, each seat's chance by its value head)."""
        self.options()
        return learned_scores_at(self.g)

    def redeal(self, int observer, uint64_t seed):
        """Re-deal in place what ``observer`` cannot see (search_determinize, draws from a stream seeded
        from ``seed``), keeping the game's own generator: the same game as far as ``observer`` knows."""
        cdef pcg32_t r
        cdef pcg32_t saved = self.g.rng
        pcg32_seed(&r, seed, 7)
        search_determinize(self.g, observer, &r)
        self.g.rng = saved

    def reseed(self, uint64_t seed):
        """Seed the game's own generator (the dice and draws from here on) from ``seed``."""
        pcg32_seed(&self.g.rng, seed, 11)

    def hidden(self, int observer):
        """What ``observer`` cannot see: {"hands": the other seats' item card ids, "item_deck",
        "monster_deck"} (top = end)."""
        cdef int s, i
        hands = {s: [self.g.players[s].items[i] for i in range(self.g.players[s].n_items)]
                 for s in range(self.g.n) if s != observer}
        return {"hands": hands, "item_deck": [self.g.item_deck[i] for i in range(self.g.n_item_deck)],
                "monster_deck": [self.g.monster_deck[i] for i in range(self.g.n_monster_deck)]}

    def record(self):
        """The game's record as the batch loop writes it, and its standings trace so far."""
        cdef GameRecord rec
        record_game(self.g, &rec)
        row = self.batch.record_view(&rec)
        out = {name: row[name][0].tolist() for name in row.dtype.names}
        out["vp_trace"] = rows_array(&self.trace, np.dtype([("vp", np.int8, (MAXP,))], align=True))["vp"].tolist()
        return out


# -- the scenario bridge ---------------------------------------------------------------------------------
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
    loads its whole state into the C struct, runs the named function with the script loaded (script.pxi),
    and writes the state back into the same Python objects, so the same assertions check both engines.
    ``inputs`` are ``sim.paws.core_engine.core_inputs(...)`` for that game's setup, rules and cards;
    ``end_reasons`` and ``fight_kinds`` are the reference engine's strings for the core's R_* and F_*.
    """
    cdef Game* g
    cdef _Batch batch
    cdef Script* script
    cdef tuple end_reasons, fight_kinds

    def __cinit__(self, dict inputs, tuple end_reasons, tuple fight_kinds):
        self.g = <Game*>calloc(1, sizeof(Game))
        self.script = <Script*>malloc(sizeof(Script))
        if self.g == NULL or self.script == NULL:
            raise MemoryError()
        memset(self.script, 0, sizeof(Script))
        self.end_reasons, self.fight_kinds = end_reasons, fight_kinds
        self.batch = _Batch(inputs)
        self.batch.configure(self.g)

    def __dealloc__(self):
        if self.g != NULL:
            free_bot_models(self.g)
        free(self.g)
        free(self.script)

    def run(self, game, str name, tuple args, list script):
        """Run section function ``name`` on ``game``'s state; returns (its result, the script report).

        script: (kind, x, y, a, b, c) per entry, kind S_DIE (x: value), S_PICK (x: n, y: result) or
        S_ASK (x: seat, y: decision kind, (a, b, c): the option). The report says how many entries were
        used, the options of each decision asked, the first draw or decision that did not match, and
        each seat's VP as the core counts it.
        """
        global loaded_script
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
        loaded_script = s
        try:
            result = self._call(name, args)
        finally:
            loaded_script = NULL
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
        cdef RowBuffer trace
        cdef Standings* row
        cdef int k
        if name == "setup_game":
            setup_game(g, self.batch.decks.mdeck, self.batch.decks.n_mdeck, self.batch.decks.ideck,
                       self.batch.decks.n_ideck)
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
            fight_init(&f, self.fight_kinds.index(py_f.kind), py_f.seats[0], py_f.seats[1], py_f.monster_hp)
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
            rows_init(&trace, sizeof(Standings), 1)
            try:
                play_round(g, &trace)
                if trace.failed or trace.n != 1:
                    raise MemoryError("standings row")
                row = <Standings*>trace.data
                return [row.vp[k] for k in range(g.n)]
            finally:
                rows_free(&trace)
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
            hand_tally(g, p)
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
            # the cards table's counters (card id -> count; card id -> MC_* counts)
            memset(p.item_plays, 0, sizeof(p.item_plays))
            memset(p.monster_stats, 0, sizeof(p.monster_stats))
            for card, n in py_p.item_plays.items():
                p.item_plays[card] = n
            for card, counts in py_p.monster_stats.items():
                for i in range(N_MC):
                    p.monster_stats[card][i] = counts[i]
        g.n_monster_deck = len(game.monster_deck)
        for i in range(g.n_monster_deck):
            g.monster_deck[i] = game.monster_deck[i]
        g.n_item_deck = len(game.item_deck)
        for i in range(g.n_item_deck):
            g.item_deck[i] = game.item_deck[i]
        g.n_item_discard = len(game.item_discard)
        for i in range(g.n_item_discard):
            g.item_discard[i] = game.item_discard[i]
        g.first_seat, g.round, g.seat = game.first_seat, game.round, game.seat
        g.ap, g.building_fights_left, g.raids_left = game.ap, game.building_fights_left, game.raids_left
        g.fight = NULL
        g.over, g.winner_seat, g.winner_team = game.over, game.winner_seat, game.winner_team
        g.end_reason = self.end_reasons.index(game.end_reason) if game.end_reason else -1
        # the record's counters kept in g.rec (turns, raids, ...): the reference Game's like-named ints
        rec = self.batch.record_view(&g.rec)
        for name in rec.dtype.names:
            value = getattr(game, name, None)
            if type(value) is int:
                rec[name][0] = value
        g.error = 0
        g.look_ok = 0
        g.n_opt = 0
        g.in_round = 0
        g.stop_at = -1

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
            py_p.item_plays.clear()
            py_p.item_plays.update({c: p.item_plays[c] for c in range(MAXITEMIDS) if p.item_plays[c]})
            py_p.monster_stats.clear()
            py_p.monster_stats.update({c: [p.monster_stats[c][i] for i in range(N_MC)] for c in range(MAXMONIDS)
                                       if any(p.monster_stats[c][i] for i in range(N_MC))})
        game.monster_deck[:] = [g.monster_deck[i] for i in range(g.n_monster_deck)]
        game.item_deck[:] = [g.item_deck[i] for i in range(g.n_item_deck)]
        game.item_discard[:] = [g.item_discard[i] for i in range(g.n_item_discard)]
        game.first_seat, game.round, game.seat = g.first_seat, g.round, g.seat
        game.ap, game.building_fights_left, game.raids_left = g.ap, g.building_fights_left, g.raids_left
        game.fight = None
        game.over, game.winner_seat, game.winner_team = bool(g.over), g.winner_seat, g.winner_team
        game.end_reason = self.end_reasons[g.end_reason] if g.end_reason >= 0 else ""
        # the record's counters back into the reference Game's like-named ints (record_game brings the
        # rest of g.rec, first_seat and the like, up to date with the state first)
        record_game(g, &g.rec)
        rec = self.batch.record_view(&g.rec)
        for name in rec.dtype.names:
            if type(getattr(game, name, None)) is int:
                setattr(game, name, int(rec[name][0]))


def trace_bytes(list choices):
    """One game's trace as the kit's writer (core/kit/trace.pxi) writes it, for tests/test_decision_trace.py:
    ``choices`` are option indexes or (index, (kind, budget, [(option, value), ...])) with a search note."""
    cdef DecisionTrace t
    cdef SearchNote note
    memset(&t, 0, sizeof(DecisionTrace))
    try:
        trace_begin(&t)
        for c in choices:
            if isinstance(c, tuple):
                k, (kind, budget, top) = c
                note.kind, note.budget, note.n = kind, budget, len(top)
                for i, (option, value) in enumerate(top):
                    note.option[i], note.value[i] = option, value
                trace_note(&t, &note)
            else:
                k = c
            trace_index(&t, k)
        return bytes(trace_array(&t))
    finally:
        free(t.data)


# -- the win-probability trace of one game, for tests (core/kit/winprob.pxi) ---------------------------------
def value_trace(dict inputs, uint64_t master_seed, int64_t game_index, object oracle, bint pause=False):
    """Game ``game_index`` played to the end with the win-probability trace of ``oracle`` ((policy weights,
    value weights)) as the engine module writes it: (the rows, VALUE_ROW_DTYPE; each row's seat features, an
    array of rows x MAXP x the value head's features). ``pause``: stop before every top-level decision and
    play on from there (a paused game writes each turn's row once)."""
    cdef _Batch batch = _Batch(inputs)
    cdef Game* g = <Game*>calloc(1, sizeof(Game))
    cdef ValueTrace values
    cdef RowBuffer features
    cdef int s
    cdef bint paused
    cdef RowBuffer trace
    if g == NULL:
        raise MemoryError()
    memset(&values, 0, sizeof(ValueTrace))
    features.data = NULL
    trace.data = NULL
    try:
        batch.configure(g)
        value_trace_init(&values, oracle, N_POLICY, N_VALUE)
        rows_init(&features, sizeof(double) * MAXP * N_VALUE, 1 << 8)
        values.features = &features
        g.vtrace = &values
        pcg32_for_game(&g.rng, master_seed, <uint64_t>game_index)
        for s in range(g.n):
            search_stream(&g.bots[s].rng, master_seed, <uint64_t>game_index, s)
        rows_init(&trace, sizeof(Standings), 16)
        setup_game(g, batch.decks.mdeck, batch.decks.n_mdeck, batch.decks.ideck, batch.decks.n_ideck)
        g.stop_at = 0 if pause else -1
        while True:
            with nogil:
                paused = play_from(g, &trace)
            if not paused:
                break
            g.stop_at = g.decisions + 1
        value_row(g, g.rec.turns, -1)
        rows = rows_array(&values.rows, VALUE_ROW_DTYPE)
        if features.failed:
            raise MemoryError()
        seat_features = np.frombuffer((<char*>features.data)[:features.n * features.row_size], np.float64).reshape(
            features.n, MAXP, N_VALUE).copy() if features.n else np.zeros((0, MAXP, N_VALUE))
    finally:
        rows_free(&values.rows)
        free_model(&values.model)
        rows_free(&features)
        rows_free(&trace)
        free_bot_models(g)
        free(g)
    return rows, seat_features


# -- every decision but a turn's actions, seen from inside a game, for tests (core/paws/learned.pxi) ---------
include "kit/probe.pxi"


cdef object probe_options(Game* g):
    """The listed options, as (a, b, c) triples."""
    cdef int k
    return [(g.opt_a[k], g.opt_b[k], g.opt_c[k]) for k in range(g.n_opt)]


cdef int probe_choice(Game* g, int seat, int kind) noexcept nogil:
    """The choice the seat's bot makes at the pending decision (as ask() dispatches it, without the trace)."""
    if learned_takes(g, seat, kind):
        return learned_choose_decision(g, &g.bots[seat].model, seat, kind)
    return heuristic_decide(g, seat, kind)


cdef object probe_hidden(Game* g, int observer):
    """What ``observer`` cannot see: the other seats' hands, the item deck and the monster deck."""
    cdef int s, i
    return ([[g.players[s].items[i] for i in range(g.players[s].n_items)] for s in range(g.n) if s != observer],
            [g.item_deck[i] for i in range(g.n_item_deck)], [g.monster_deck[i] for i in range(g.n_monster_deck)])


cdef void probe_redeal(Game* c, int seat, pcg32_t* r) noexcept nogil:
    """What the seat cannot see, re-dealt as the search does (search_determinize)."""
    search_determinize(c, seat, r)


def decision_probe(dict inputs, uint64_t master_seed, int64_t game_index, tuple redeals=()):
    """Game ``game_index`` played to the end as PausedGame plays it, logging every decision asked that is not
    a turn's action or a free placement: a list of {"seat", "kind" (a Decision), "options" ((a, b, c) triples),
    "features" (one list per option, learned_decision_features), "choice" (the bot's), "pick" (the
    heuristic's), "redealt": per seed of ``redeals``, the same on a copy with what the seat cannot see re-dealt
    (search_determinize) and the dice reseeded, with "hidden_changed"}; and the game's record."""
    return run_probe(inputs, master_seed, game_index, redeals)
