# cython: language_level=3
"""Tales are Real core for tests only (tests/tales/tales_core_scenario.py, tests/tales/test_tales_continue.py).

It is built from the engine's rule files (``core/tales/*.pxi``) with ``core/tales/script.pxi`` in place
of ``core/tales/draws.pxi``: every die, random pick and bot decision is the next entry of a script while
one is loaded, so a hand-worked scenario runs on the core exactly as the Python harness runs it on the
reference engine (``CoreScenario``). With no script loaded the draws are the game's own generator's and
the decisions its bots', as in the engine: ``PausedGame``, the hook on continuable games, plays games of
a batch that way. The engine (``core/tales_engine.pyx``) never looks for a script.
"""

from libc.stdint cimport int8_t, int16_t, int64_t, uint8_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc, realloc, calloc
from libc.string cimport memcpy, memset

import numpy as np

from libc.math cimport exp, log, sqrt

from core.kit.types cimport MAXFEAT, MAXHIDDEN, MAXKINDS, BatchOptions, DecisionTrace, Model, RowBuffer, Samples, Search, SearchNote, ValueTrace
from core.rng cimport game_seed, pcg32_below, pcg32_die, pcg32_for_game, pcg32_next, pcg32_seed, pcg32_t, splitmix64
from core.tales_engine cimport _configure
from core.tales_types cimport *

from core.tales_engine import CARD_ROW_DTYPE

include "tales/script.pxi"
include "kit/lists.pxi"
include "kit/rows.pxi"
include "kit/state.pxi"
include "kit/trace.pxi"
include "kit/search.pxi"
include "kit/learned.pxi"
include "tales/common.pxi"
include "tales/setup.pxi"
include "tales/recruitment.pxi"
include "tales/equipment.pxi"
include "tales/abilities.pxi"
include "tales/potions.pxi"
include "tales/damage.pxi"
include "tales/victory.pxi"
include "tales/battle.pxi"
include "tales/heuristic.pxi"
include "tales/game.pxi"
include "tales/record.pxi"
include "tales/search.pxi"
include "tales/learned.pxi"
include "kit/winprob.pxi"


# the reference engine's functions (and Game methods) that CoreScenario.run runs on the core, by name
SECTION_FUNCTIONS = ("setup_game", "recruitment", "equipment", "equip_seat", "options", "can_carry", "can_take_off",
                     "fight", "take_turn", "battle", "who_begins", "play_round", "by_losses", "life_left",
                     "loss_weight", "on_field", "decide")
END_REASONS = ("champion_killed", "losses", "draw", "last_standing")     # R_* (sim.tales.kinds.END_REASONS)
LIMITS = {"army_size": MAXARMY, "hands": MAXHANDS, "creature deck": MAXPEOPLE, "hand": MAXHAND,
          "equipment deck": MAXEQDECK, "script": MAXSCRIPT}


cdef class CoreScenario:
    """Runs one section function of the core on a reference-engine game state, with a scripted draw queue.

    The rulebook scenario tests build a ``sim.tales.state.Game``; ``run`` loads its whole state into the
    C struct, runs the named function with the script (core/tales/script.pxi), and writes the state back
    into the same Python objects, so the same assertions check both engines. ``inputs`` are
    ``sim.tales.core_engine.core_inputs(...)`` for that game's setup, rules and cards.
    """
    cdef Game* g
    cdef CreatureSpec* cspec
    cdef EquipSpec* espec
    cdef object record_dtype

    def __cinit__(self, dict inputs):
        self.record_dtype = _record_dtype(inputs)
        self.g = <Game*>calloc(1, sizeof(Game))
        self.cspec = <CreatureSpec*>malloc(sizeof(CreatureSpec) * max(1, len(inputs["creatures"])))
        self.espec = <EquipSpec*>malloc(sizeof(EquipSpec) * max(1, len(inputs["equipment"])))
        if self.g == NULL or self.cspec == NULL or self.espec == NULL:
            raise MemoryError()
        _configure(self.g, self.cspec, self.espec, inputs)

    def __dealloc__(self):
        if self.g != NULL:
            free_bot_models(self.g)
        free(self.g)
        free(self.cspec)
        free(self.espec)

    def run(self, game, str name, tuple args, list entries):
        """Run section function ``name`` on ``game``'s state; returns (its result, the script report).

        entries: (kind, x, y, a, b, c, d) per script entry, kind S_DIE (x: value), S_PICK (x: n, y: the
        value) or S_ASK (x: seat, y: decision kind, (a, b, c, d): the option). The report says how many
        entries were used, the options of each decision asked, and the first draw or decision that did
        not match. Positions in ``args`` are (seat, slot) pairs.
        """
        cdef Game* g = self.g
        cdef int i
        if name not in SECTION_FUNCTIONS:
            raise ValueError(f"no section function {name!r} in the core; known: {', '.join(SECTION_FUNCTIONS)}")
        if len(entries) > MAXSCRIPT:
            raise ValueError(f"a script of {len(entries)} entries; the core takes at most {MAXSCRIPT}")
        self._load(game)
        memset(&script, 0, sizeof(Script))
        script.n = len(entries)
        for i, (kind, x, y, a, b, c, d) in enumerate(entries):
            script.entries[i].kind, script.entries[i].x, script.entries[i].y = kind, x, y
            script.entries[i].opt[0], script.entries[i].opt[1] = a, b
            script.entries[i].opt[2], script.entries[i].opt[3] = c, d
            script.seen_at[i] = -1
        global script_loaded
        script_loaded = 1
        try:
            result = self._call(name, args)
        finally:
            script_loaded = 0
        if g.error and not script.failed:
            raise RuntimeError(f"{name}: a decision had more options than the core's capacity ({MAXOPT})")
        if script.buried_lost:
            raise RuntimeError(f"{name}: more than {MAXBURIED} cards went to the graveyard")
        self._store(game, name in ("fight", "take_turn", "battle", "play_round"))
        seen = {i: [tuple(script.seen[k]) for k in range(script.seen_at[i], script.seen_at[i] + script.seen_n[i])]
                for i in range(script.used) if script.seen_at[i] >= 0}
        failed = None
        if script.failed:
            failed = dict(kind=script.failed - 1, x=script.failed_x, y=script.failed_y,
                          options=None if script.failed_n_seen < 0 else
                          [tuple(script.seen[k]) for k in range(script.failed_seen,
                                                                script.failed_seen + script.failed_n_seen)])
        return result, dict(used=script.used, seen=seen, failed=failed)

    cdef object _call(self, str name, tuple args):
        cdef Game* g = self.g
        cdef Bot kept
        cdef int k
        if name == "setup_game":
            setup_game(g)
        elif name == "recruitment":
            recruitment(g)
        elif name == "equipment":
            equipment(g)
        elif name == "equip_seat":
            equip_seat(g, args[0])
        elif name == "options":
            equip_options(g, args[0])
            return [(g.opt_a[k], g.opt_b[k], g.opt_c[k], g.opt_d[k]) for k in range(g.n_opt)]
        elif name == "can_carry":
            return bool(can_carry(g, pos(args[0][0], args[0][1]), args[1]))
        elif name == "can_take_off":
            return bool(can_take_off(g, pos(args[0][0], args[0][1]), args[1]))
        elif name == "fight":
            fight(g, pos(args[0][0], args[0][1]), pos(args[1][0], args[1][1]))
        elif name == "take_turn":
            take_turn(g, args[0])
        elif name == "battle":
            battle(g)
        elif name == "who_begins":
            return who_begins(g)
        elif name == "play_round":
            play_round(g)
        elif name == "by_losses":
            by_losses(g)
        elif name == "life_left":
            return life_left(g, pos(args[0][0], args[0][1]))
        elif name == "loss_weight":
            return loss_weight(g, args[0])
        elif name == "on_field":
            return on_field(g, args[0])
        elif name == "decide":  # the heuristic bot: (seat, kind, options as (a, b, c, d), {weight: value})
            seat, kind, options, weights = args
            if not 1 <= len(options) <= MAXOPT:
                raise ValueError(f"a decision among {len(options)} options")
            g.n_opt = 0
            for a, b, c, d in options:
                opt_add(g, a, b, c, d)
            kept = g.bots[seat]
            g.bots[seat].kind = BOT_HEURISTIC
            g.bots[seat].w = weights
            try:
                return heuristic_decide(g, seat, kind)
            finally:
                g.bots[seat] = kept
        return None

    cdef _load(self, game):
        """The whole state of a reference-engine Game into the struct."""
        cdef Game* g = self.g
        cdef Seat* st
        cdef int s, k, i, p, a, b, c, d
        if game.n != g.n or game.army != g.army or len(game.equipment_deck) != g.n // 2:
            raise ValueError("the game's seats or army differ from this bridge's inputs")
        for p in range(g.n // 2):
            if len(game.equipment_deck[p]) > MAXEQDECK:
                raise ValueError(f"beyond the core's capacity: {LIMITS}")
            g.n_eq_deck[p] = len(game.equipment_deck[p])
            for i in range(g.n_eq_deck[p]):
                g.eq_deck[p][i] = game.equipment_deck[p][i]
        for s in range(g.n):
            py, st = game.seats[s], &g.seats[s]
            if int(py.people) != st.people:
                raise ValueError(f"P{s} plays {py.people!r}, this bridge's inputs another people")
            if len(py.deck) > MAXPEOPLE or len(py.hand) > MAXHAND or any(len(x) > MAXHANDS for x in py.gear):
                raise ValueError(f"P{s}: beyond the core's capacity: {LIMITS}")
            st.team, st.pairing, st.champion = py.team, py.pairing, py.champion
            st.n_deck = len(py.deck)
            for i in range(st.n_deck):
                st.deck[i] = py.deck[i]
            st.n_hand = len(py.hand)
            for i in range(st.n_hand):
                st.hand[i] = py.hand[i]
            for k in range(MAXARMY):
                st.slot[k], st.damage[k], st.exhausted[k], st.doomed[k], st.n_gear[k] = EMPTY, 0, 0, 0, 0
                st.potion_effect[k], st.potion_amount[k], st.potion_left[k] = 0, 0, 0
            for k in range(g.army):
                st.slot[k], st.damage[k], st.exhausted[k], st.doomed[k] = (py.slot[k], py.damage[k], py.exhausted[k],
                                                                           py.doomed[k])
                st.potion_effect[k], st.potion_amount[k], st.potion_left[k] = py.potion[k]
                st.n_gear[k] = len(py.gear[k])
                for i in range(st.n_gear[k]):
                    st.gear[k][i] = py.gear[k][i]
            st.losses = py.losses
            memset(st.fielded, 0, sizeof(st.fielded))
            memset(st.kills, 0, sizeof(st.kills))
            memset(st.gear_used, 0, sizeof(st.gear_used))
            memset(st.gear_kills, 0, sizeof(st.gear_kills))
            for i in range(len(py.fielded)):
                st.fielded[i], st.kills[i] = py.fielded[i], py.kills[i]
            for i in range(len(py.gear_used)):
                st.gear_used[i], st.gear_kills[i] = py.gear_used[i], py.gear_kills[i]
        g.round = game.round
        g.first_side, g.active = game.first_side, game.active
        (a, b), (c, d) = game.fight or ((NOBODY, EMPTY), (NOBODY, EMPTY))
        g.fight_att, g.fight_dfn = pos(a, b), pos(c, d)
        a, b = game.attacker or (NOBODY, EMPTY)
        g.attacker = pos(a, b)
        g.champion_fell[0], g.champion_fell[1] = game.champion_fell
        g.over, g.winner_team = game.over, game.winner_team
        g.end_reason = END_REASONS.index(game.end_reason) if game.end_reason else -1
        g.error = 0
        g.n_opt = 0
        # the record's counters kept in g.rec (turns, fights, destroyed): the reference Game's (per seat,
        # its Seats') like-named ints
        rec = _record_view(self.record_dtype, &g.rec)
        for name in rec.dtype.names:
            value = getattr(game, name, None)
            if type(value) is int:
                rec[name][0] = value
            elif rec[name][0].ndim == 1:
                for s in range(g.n):
                    value = getattr(game.seats[s], name, None)
                    if type(value) is int:
                        rec[name][0][s] = value
        g.stage, g.seat, g.turn_team, g.stop_at = ST_NONE, NOBODY, NOBODY, -1

    cdef _store(self, game, bint fought):
        """The struct's state back into the same Python objects (lists are filled in place); the cards that
        went to the graveyard are appended to the seats' graveyards. ``fought``: the function resolved
        fights, after which the reference engine has no fight or chosen attacker left."""
        cdef Game* g = self.g
        cdef Seat* st
        cdef int s, k, i, p
        for p in range(g.n // 2):
            game.equipment_deck[p][:] = [g.eq_deck[p][i] for i in range(g.n_eq_deck[p])]
        for s in range(g.n):
            py, st = game.seats[s], &g.seats[s]
            py.champion = st.champion
            py.deck[:] = [st.deck[i] for i in range(st.n_deck)]
            py.hand[:] = [st.hand[i] for i in range(st.n_hand)]
            py.slot[:] = [st.slot[k] for k in range(g.army)]
            py.damage[:] = [st.damage[k] for k in range(g.army)]
            py.exhausted[:] = [st.exhausted[k] for k in range(g.army)]
            py.doomed[:] = [st.doomed[k] for k in range(g.army)]
            py.gear[:] = [[st.gear[k][i] for i in range(st.n_gear[k])] for k in range(g.army)]
            py.potion[:] = [[st.potion_effect[k], st.potion_amount[k], st.potion_left[k]] for k in range(g.army)]
            py.losses = st.losses
            py.fielded[:] = [st.fielded[i] for i in range(len(py.fielded))]
            py.kills[:] = [st.kills[i] for i in range(len(py.kills))]
            py.gear_used[:] = [st.gear_used[i] for i in range(len(py.gear_used))]
            py.gear_kills[:] = [st.gear_kills[i] for i in range(len(py.gear_kills))]
        for i in range(script.n_buried):
            s, what, card_id = script.buried[i][0], script.buried[i][1], script.buried[i][2]
            (game.seats[s].equipment_graveyard if what else game.seats[s].graveyard).append(card_id)
        game.round = g.round
        game.first_side, game.active = g.first_side, g.active
        if fought:
            game.fight = game.attacker = None
        game.champion_fell[:] = [g.champion_fell[0], g.champion_fell[1]]
        game.over, game.winner_team = bool(g.over), g.winner_team
        game.end_reason = END_REASONS[g.end_reason] if g.end_reason >= 0 else ""
        # the record's counters back into the reference Game's (its Seats') like-named ints (record_game
        # brings the rest of g.rec, first_side and the like, up to date with the state first)
        record_game(g, &g.rec)
        rec = _record_view(self.record_dtype, &g.rec)
        for name in rec.dtype.names:
            if type(getattr(game, name, None)) is int:
                setattr(game, name, int(rec[name][0]))
            elif rec[name][0].ndim == 1:
                for s in range(g.n):
                    if type(getattr(game.seats[s], name, None)) is int:
                        setattr(game.seats[s], name, int(rec[name][0][s]))


cdef object _record_dtype(dict inputs):
    dtype = np.dtype(inputs["record_dtype"])
    if dtype.itemsize != sizeof(GameRecord):
        raise ValueError("the record dtype is not laid out like GameRecord")
    return dtype


cdef object _record_view(object dtype, GameRecord* rec):
    """``rec`` as a one-row numpy array of the record dtype that aliases it: writes go to the struct."""
    cdef char[::1] raw = <char[:sizeof(GameRecord)]>(<char*>rec)
    return np.asarray(raw).view(dtype)


# -- the hook on continuable games (core/tales/game.pxi play_from, core/kit/state.pxi copy_game) ---------
cdef class _Batch:
    """The fixed inputs of a batch in C: what a Game's card-spec pointers point to."""
    cdef CreatureSpec* cspec
    cdef EquipSpec* espec
    cdef dict inputs
    cdef object record_dtype

    def __cinit__(self, dict inputs):
        self.inputs = inputs
        self.record_dtype = _record_dtype(inputs)
        self.cspec = <CreatureSpec*>malloc(sizeof(CreatureSpec) * max(1, len(inputs["creatures"])))
        self.espec = <EquipSpec*>malloc(sizeof(EquipSpec) * max(1, len(inputs["equipment"])))
        if self.cspec == NULL or self.espec == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.cspec)
        free(self.espec)

    cdef configure(self, Game* g):
        _configure(g, self.cspec, self.espec, self.inputs)


cdef class PausedGame:
    """One game of a batch played up to a top-level decision, to be copied and played on.

    ``PausedGame(inputs, master_seed, game_index, stop_at)`` sets the game up and plays it without the GIL
    until decision number ``stop_at`` (a recruitment return, an equipment action or discard, a battle
    turn's attacker or defender) is to be taken, or to the end. ``copy()`` is an independent copy of the
    state (one memcpy); ``play_on(stop_at=-1)`` continues it; ``options()`` and ``take(k)`` list and take
    the paused decision's options, ``bot_choice()`` asks its bot. ``record()`` is its GameRecord
    (per-seat arrays in full) with "cards", its card table rows so far.
    """
    cdef Game* g
    cdef _Batch batch
    cdef readonly bint paused

    def __cinit__(self):
        self.g = <Game*>calloc(1, sizeof(Game))
        if self.g == NULL:
            raise MemoryError()

    def __init__(self, dict inputs=None, uint64_t master_seed=0, int64_t game_index=0, int64_t stop_at=-1):
        if inputs is None:  # copy() fills it
            return
        cdef int s
        self.batch = _Batch(inputs)
        self.batch.configure(self.g)
        pcg32_for_game(&self.g.rng, master_seed, <uint64_t>game_index)
        for s in range(self.g.n):
            search_stream(&self.g.bots[s].rng, master_seed, <uint64_t>game_index, s)
        setup_game(self.g)
        self.play_on(stop_at)

    def __dealloc__(self):
        if self.g != NULL:
            free_bot_models(self.g)
        free(self.g)

    @property
    def decisions(self):
        """Top-level decisions taken so far."""
        return self.g.decisions

    @property
    def seat(self):
        """The seat at the paused decision (-1 when not paused)."""
        return self.g.seat if self.paused else NOBODY

    @property
    def asking(self):
        """The kind of the paused decision (sim.tales.kinds.Decision's value), -1 when not paused."""
        return self.g.asking if self.paused else -1

    @property
    def rng_state(self):
        return self.g.rng.state

    def copy(self):
        """An independent copy: the same state and generator."""
        cdef PausedGame c = PausedGame()
        copy_game(c.g, self.g)
        own_bot_models(c.g)             # the copy's networks are its own (freed with it)
        c.batch = self.batch
        c.paused = self.paused
        return c

    def play_on(self, int64_t stop_at=-1):
        """Play on from the state, until decision ``stop_at`` or (-1) to the end; True if it stopped there."""
        cdef bint paused
        self.g.stop_at = stop_at
        with nogil:
            paused = play_from(self.g)
        self.paused = paused
        return paused

    def options(self):
        """The options of the decision a paused game is at, as (a, b, c, d) (legal_actions)."""
        cdef int k
        if not self.paused:
            raise ValueError("the game is not paused at a decision")
        legal_actions(self.g, self.g.seat)
        return [(self.g.opt_a[k], self.g.opt_b[k], self.g.opt_c[k], self.g.opt_d[k]) for k in range(self.g.n_opt)]

    def bot_choice(self):
        """Ask the paused decision's seat bot, as play_on would (a random bot draws from the game's
        generator): ``take(bot_choice())`` is the decision the bot takes in play."""
        self.options()
        return ask(self.g, self.g.seat, self.g.asking)

    def take(self, int choice):
        """Take option ``choice`` of options() as the paused decision (take_option), instead of the bot."""
        opts = self.options()
        if not 0 <= choice < len(opts):
            raise ValueError(f"option {choice} of {len(opts)}")
        take_option(self.g, choice)
        self.paused = False

    def search_choice(self, uint64_t bot_seed):
        """(option, the bot stream's state after): the option of options() that the paused seat's search
        bot picks, its own stream seeded from ``bot_seed`` (search_decide, core/tales/search.pxi); the
        game is left as it was."""
        cdef int seat, choice
        self.options()
        seat = self.g.seat
        if self.g.bots[seat].kind < BOT_MCTS:
            raise ValueError(f"seat {seat} has no search bot")
        pcg32_seed(&self.g.bots[seat].rng, bot_seed, 1)
        with nogil:
            choice = search_decide(self.g, seat)
        return choice, (self.g.bots[seat].rng.state, self.g.bots[seat].rng.inc)

    @property
    def attacker(self):
        """(seat, slot) of the creature in attack mode at a paused defender or provoke decision."""
        if not (self.paused and (self.g.asking == D_DEFENDER or self.g.asking == D_PROVOKE)):
            raise ValueError("the game is not paused at a defender or provoke decision")
        return self.g.attacker.seat, self.g.attacker.slot

    def reseed(self, uint64_t seed):
        """Seed the game's own generator (the dice and draws from here on) from ``seed``."""
        pcg32_seed(&self.g.rng, seed, 11)

    def creature_at(self, int seat, int slot):
        """The creature id in ``seat``'s army slot ``slot`` (-1: empty)."""
        if not (0 <= seat < self.g.n and 0 <= slot < self.g.army):
            raise ValueError(f"seat {seat}, slot {slot}")
        return -1 if self.g.seats[seat].slot[slot] == EMPTY else self.g.seats[seat].slot[slot]

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

    def reverse_hidden(self, int observer):
        """Reverse in place the order of every pile ``observer`` cannot see into (the other commanders'
        creature decks, each equipment deck with the other commanders' hands from it as one row): the
        same cards, elsewhere; what ``observer`` knows is unchanged (its own deck and its Champion
        guesses are left alone); while round 1's armies are set up, each other commander's Champion becomes
        the next Champion of its people (one placed face down in the middle too)."""
        cdef int s, p, i, n, c
        cdef int16_t pool[MAXEQDECK + MAXSEATS * MAXHAND]
        cdef Seat* st
        for s in range(self.g.n):
            st = &self.g.seats[s]
            if s != observer and not (self.g.stage == ST_RECRUIT and self.g.serving == s):
                for i in range(st.n_deck // 2):
                    st.deck[i], st.deck[st.n_deck - 1 - i] = st.deck[st.n_deck - 1 - i], st.deck[i]
            if (s != observer and self.g.round == 1 and self.g.stage == ST_RECRUIT and st.champion != EMPTY
                    and self.g.n_champions[st.people] > 1):
                for i in range(self.g.n_champions[st.people]):
                    if self.g.champions[st.people][i] == st.champion:
                        break
                c = self.g.champions[st.people][(i + 1) % self.g.n_champions[st.people]]
                if st.fielded[st.champion] and st.slot[self.g.middle] == st.champion:
                    st.fielded[st.champion] = 0
                    st.fielded[c] = 1
                    st.slot[self.g.middle] = c
                st.champion = c
        for p in range(self.g.n // 2):
            n = self.g.n_eq_deck[p]
            memcpy(pool, self.g.eq_deck[p], sizeof(int16_t) * n)
            for s in range(self.g.n):
                if s != observer and self.g.seats[s].pairing == p:
                    memcpy(&pool[n], self.g.seats[s].hand, sizeof(int16_t) * self.g.seats[s].n_hand)
                    n += self.g.seats[s].n_hand
            for i in range(n // 2):
                pool[i], pool[n - 1 - i] = pool[n - 1 - i], pool[i]
            n = self.g.n_eq_deck[p]
            memcpy(self.g.eq_deck[p], pool, sizeof(int16_t) * n)
            for s in range(self.g.n):
                if s != observer and self.g.seats[s].pairing == p:
                    memcpy(self.g.seats[s].hand, &pool[n], sizeof(int16_t) * self.g.seats[s].n_hand)
                    n += self.g.seats[s].n_hand

    def hidden(self, int observer):
        """What ``observer`` cannot see: {"decks": each seat's creature deck (its own too: the order),
        "drawn": the creatures being chosen among in recruitment, "hands": the other seats' equipment
        ids, "eq_decks": each pairing's equipment deck, "champions": the other seats' Champions} (top =
        end)."""
        cdef int s, i, p
        cdef Game* g = self.g
        return {"decks": {s: [g.seats[s].deck[i] for i in range(g.seats[s].n_deck)] for s in range(g.n)},
                "drawn": [g.drawn[i] for i in range(g.n_drawn)] if g.stage == ST_RECRUIT else [],
                "hands": {s: [g.seats[s].hand[i] for i in range(g.seats[s].n_hand)]
                          for s in range(g.n) if s != observer},
                "eq_decks": [[g.eq_deck[p][i] for i in range(g.n_eq_deck[p])] for p in range(g.n // 2)],
                "champions": {s: g.seats[s].champion for s in range(g.n) if s != observer}}

    def record(self):
        """The game's record as the batch loop writes it, and its card table rows (CARD_ROW_DTYPE) so far."""
        cdef GameRecord rec
        cdef RowBuffer rows
        record_game(self.g, &rec)
        row = _record_view(self.batch.record_dtype, &rec)
        out = {name: row[name][0].tolist() for name in row.dtype.names}
        rows.data = NULL
        rows_init(&rows, sizeof(CardRow), 64)
        try:
            card_rows(self.g, &rows, 0)
            out["cards"] = rows_array(&rows, CARD_ROW_DTYPE).tolist()
        finally:
            rows_free(&rows)
        return out


# -- the potion and Champion decisions, seen from inside a game, for tests (core/tales/learned.pxi) -------------
include "kit/probe.pxi"


cdef object probe_options(Game* g):
    """The listed options, each by its first value (a hand index, -1 for no potion, or a creature id)."""
    cdef int k
    return [g.opt_a[k] for k in range(g.n_opt)]


cdef int probe_choice(Game* g, int seat, int kind) noexcept nogil:
    """The choice the seat's bot makes at the pending decision (as ask() dispatches it, without the trace)."""
    if learned_takes(g, seat, kind):
        return learned_block_decide(g, seat, kind)
    return heuristic_decide(g, seat, kind)


cdef object probe_hidden(Game* g, int observer):
    """What ``observer`` cannot see: the other commanders' hands and creature decks, the equipment decks, and
    the other commanders' Champions until they are revealed."""
    cdef int s, i, p
    shown = g.round > 1 or (g.round == 1 and g.stage != ST_RECRUIT)
    return ([[g.seats[s].hand[i] for i in range(g.seats[s].n_hand)] for s in range(g.n) if s != observer],
            [[g.seats[s].deck[i] for i in range(g.seats[s].n_deck)] for s in range(g.n) if s != observer],
            [[g.eq_deck[p][i] for i in range(g.n_eq_deck[p])] for p in range(g.n // 2)],
            [] if shown else [g.seats[s].champion for s in range(g.n) if s != observer])


cdef void probe_other_champions(Game* g, int observer) noexcept nogil:
    """Before the Champions are revealed: each other commander's Champion chosen so far becomes the next
    Champion of its people (as PausedGame.reverse_hidden; search_determinize leaves them before round 1)."""
    cdef int s, i, c
    cdef Seat* st
    if g.round > 1 or (g.round == 1 and g.stage != ST_RECRUIT):
        return
    for s in range(g.n):
        st = &g.seats[s]
        if s == observer or st.champion == EMPTY or g.n_champions[st.people] < 2:
            continue
        for i in range(g.n_champions[st.people]):
            if g.champions[st.people][i] == st.champion:
                break
        c = g.champions[st.people][(i + 1) % g.n_champions[st.people]]
        if st.fielded[st.champion] and st.slot[g.middle] == st.champion:
            st.fielded[st.champion] = 0
            st.fielded[c] = 1
            st.slot[g.middle] = c
        st.champion = c


cdef void probe_redeal(Game* c, int seat, pcg32_t* r) noexcept nogil:
    """What the seat cannot see, re-dealt as the search does (search_determinize), and the other Champions before
    they are revealed."""
    search_determinize(c, seat, r)
    probe_other_champions(c, seat)


def decision_probe(dict inputs, uint64_t master_seed, int64_t game_index, tuple redeals=()):
    """Game ``game_index`` played to the end as PausedGame plays it, logging every potion and Champion decision
    asked: a list of {"seat", "kind" (a Decision), "options" (each option's first value: a hand index, -1 for no
    potion, or a creature id), "features" (one list per option, learned_decision_features), "choice" (the
    bot's), "pick" (the heuristic's), "redealt": per seed of ``redeals``, the same on a copy with what the seat
    cannot see re-dealt and the dice reseeded, with "hidden_changed"}; and the game's record."""
    return run_probe(inputs, master_seed, game_index, redeals)


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
    if g == NULL:
        raise MemoryError()
    memset(&values, 0, sizeof(ValueTrace))
    features.data = NULL
    try:
        batch.configure(g)
        value_trace_init(&values, oracle, N_POLICY, N_VALUE)
        rows_init(&features, sizeof(double) * MAXP * N_VALUE, 1 << 8)
        values.features = &features
        g.vtrace = &values
        pcg32_for_game(&g.rng, master_seed, <uint64_t>game_index)
        for s in range(g.n):
            search_stream(&g.bots[s].rng, master_seed, <uint64_t>game_index, s)
        setup_game(g)
        g.stop_at = 0 if pause else -1
        while True:
            with nogil:
                paused = play_from(g)
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
        free_bot_models(g)
        free(g)
    return rows, seat_features
