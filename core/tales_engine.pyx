# cython: language_level=3
"""Tales are Real engine core: plays whole batches of games in C with the GIL released.

The rules live in the ``core/tales/*.pxi`` files, one per rulebook section, each mirroring its module
in ``sim/tales/``; this module holds the batch loop and its typed column buffers. Use it through
``sim.tales.core_engine`` (which validates parameters and builds the Arrow tables).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset

import numpy as np

from core.tales_types cimport *
from core.rng cimport pcg32_below, pcg32_die, pcg32_for_game, pcg32_t


# The optional card table: rows appended game by game into a growing C buffer.
ctypedef struct CardRows:
    CardRow* data
    size_t n
    size_t cap
    int failed


cdef inline void rows_push(CardRows* t, int game, int seat, int kind, int card, int champion, int survived,
                           int kills) noexcept nogil:
    cdef CardRow* grown
    if t.failed:
        return
    if t.n == t.cap:
        grown = <CardRow*>realloc(t.data, t.cap * 2 * sizeof(CardRow))
        if grown == NULL:
            t.failed = 1
            return
        t.data = grown
        t.cap *= 2
    t.data[t.n].game = game
    t.data[t.n].seat = <int8_t>seat
    t.data[t.n].kind = <int8_t>kind
    t.data[t.n].card = <int16_t>card
    t.data[t.n].champion = <int8_t>champion
    t.data[t.n].survived = <int8_t>survived
    t.data[t.n].kills = <int16_t>kills
    t.n += 1


include "tales/draws.pxi"
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


# the fields of the Rules and Weights structs (core/tales_types.pxd): sim.tales.core_engine refuses a rule
# parameter or bot weight the core does not know rather than let it be ignored
RULE_FIELDS = ("game_rounds", "survive", "max_rounds", "army_size", "first_draw", "first_place", "equipment_draw",
               "swap_cost", "swap_gain", "hands", "points_budget", "max_equip_actions", "potions_per_fight",
               "potion_lasts", "team_attackers", "loss_normal", "loss_elite", "elite_min_tier",
               "champion_death_ends", "survive_end")
# choice-valued rule parameters: the core takes the index of the value in this tuple (the enums in
# core/tales_types.pxd); sim.tales.core_engine refuses a rule set whose choices differ
CHOICES = {"potion_lasts": ("turn", "card"),       # POTION_LASTS_TURN, POTION_LASTS_CARD
           "survive_end": ("player", "team")}      # SURVIVE_END_PLAYER, SURVIVE_END_TEAM
WEIGHT_FIELDS = ("aggression", "caution", "kill_bonus", "champion_guard", "swap_min_useless", "potion_eagerness")
# the C enumerations (core/tales_types.pxd) by the names of their twins in sim/tales/kinds.py
KINDS = {
    "People": {"ANIMALIS": P_ANIMALIS, "SCHATTEN": P_SCHATTEN},
    "Ability": {"NONE": AB_NONE, "FIRST_STRIKE": AB_FIRST_STRIKE, "DEATH_BLOW": AB_DEATH_BLOW,
                "AREA_DAMAGE": AB_AREA_DAMAGE, "PROVOKE": AB_PROVOKE, "ARMOR": AB_ARMOR, "EVADE": AB_EVADE},
    "Kind": {"MELEE": K_MELEE, "RANGED": K_RANGED, "SHIELD": K_SHIELD, "POTION": K_POTION},
    "Hand": {"NONE": H_NONE, "MAIN": H_MAIN, "OFF": H_OFF, "BOTH": H_BOTH},
    "Effect": {"NONE": E_NONE, "HEAL": E_HEAL, "STRENGTH": E_STRENGTH, "ARMOR": E_ARMOR,
               "FIRST_STRIKE": E_FIRST_STRIKE},
    "Decision": {"CHAMPION": D_CHAMPION, "RETURN": D_RETURN, "EQUIP": D_EQUIP, "DISCARD": D_DISCARD,
                 "ATTACKER": D_ATTACKER, "DEFENDER": D_DEFENDER, "PROVOKE": D_PROVOKE, "POTION": D_POTION},
    "Act": {"PASS": ACT_PASS, "SWAP": ACT_SWAP, "EQUIP": ACT_EQUIP, "UNEQUIP": ACT_UNEQUIP},
}
END_REASONS = {R_CHAMPION_KILLED: "champion_killed", R_LOSSES: "losses", R_DRAW: "draw",
               R_LAST_STANDING: "last_standing"}
LIMITS = {"seats": MAXSEATS, "army_size": MAXARMY, "hands": MAXHANDS, "creatures_per_people": MAXPEOPLE,
          "creatures": MAXCRE, "equipment_cards": MAXEQ, "equipment_copies": MAXEQDECK}
CARD_ROW_DTYPE = np.dtype([("game", np.int32), ("card", np.int16), ("kills", np.int16), ("seat", np.int8),
                           ("kind", np.int8), ("champion", np.int8), ("survived", np.int8)])


def play_batch(dict rules, int players, list people, list bots, list creatures, list equipment, list champions,
               list people_decks, list equipment_deck, bint want_cards, uint64_t master_seed, int64_t start,
               int64_t count):
    """Play games start..start+count-1; returns a dict of numpy columns (see sim.tales.core_engine).

    rules: {name: int} for every numeric TalesRules field; people: P_* per seat; bots: [(kind, {weight:
    int})] per seat; creatures: [(people, damage, life, people_chance, tier, ability, ability_chance,
    ability_amount, points)] by id; equipment: [(kind, hand, damage, life, block, armor, effect, amount,
    duration, points)] by id; champions, people_decks: creature ids per people (file order);
    equipment_deck: ids, one per copy, before shuffling.
    """
    cdef Game* g = <Game*>malloc(sizeof(Game))
    cdef CreatureSpec* cspec = <CreatureSpec*>malloc(sizeof(CreatureSpec) * max(1, len(creatures)))
    cdef EquipSpec* espec = <EquipSpec*>malloc(sizeof(EquipSpec) * max(1, len(equipment)))
    cdef CardRows rows
    if g == NULL or cspec == NULL or espec == NULL:
        free(g); free(cspec); free(espec)
        raise MemoryError()
    rows.data = NULL
    try:
        _configure(g, cspec, espec, rules, players, people, bots, creatures, equipment, champions, people_decks,
                   equipment_deck)
        cols = {name: np.empty(count, dt) for name, dt in (
            ("first_side", np.int8), ("winner_team", np.int8), ("end_reason", np.int8), ("rounds", np.int16),
            ("turns", np.int32), ("fights", np.int32))}
        cols["errors"] = np.zeros(count, np.int8)
        cols["rng_state"] = np.empty(count, np.uint64)   # the generator after the game: tests compare draws
        for name in ("weighted_losses", "destroyed", "survivors", "champion_alive", "champion"):
            cols[name] = np.empty(count * players, np.int16)
        rows.cap = 1 << 12
        rows.n = 0
        rows.failed = 0
        if want_cards:
            rows.data = <CardRow*>malloc(rows.cap * sizeof(CardRow))
            if rows.data == NULL:
                raise MemoryError()
        _run(g, _Views(cols), &rows if want_cards else NULL, master_seed, start, count)
        if rows.failed:
            raise MemoryError("card table")
        if want_cards:
            cols["cards"] = (np.frombuffer((<char*>rows.data)[:rows.n * sizeof(CardRow)], dtype=CARD_ROW_DTYPE)
                             .copy() if rows.n else np.empty(0, CARD_ROW_DTYPE))
    finally:
        free(rows.data)
        free(g)
        free(cspec)
        free(espec)
    return cols


cdef _configure(Game* g, CreatureSpec* cspec, EquipSpec* espec, dict rules, int players, list people,
                list bots, list creatures, list equipment, list champions, list people_decks, list equipment_deck):
    """Fill the parts of ``g`` that stay fixed over a batch: rules, seats, bots, card data."""
    cdef int s, p, k
    if (players not in (2, 4) or rules["army_size"] > MAXARMY or rules["hands"] > MAXHANDS
            or len(creatures) > MAXCRE or len(equipment) > MAXEQ or len(equipment_deck) > MAXEQDECK
            or any(len(d) > MAXPEOPLE or len(c) > MAXPEOPLE for d, c in zip(people_decks, champions))):
        raise ValueError(f"beyond the core's capacity: {LIMITS}")
    memset(g, 0, sizeof(Game))
    g.r = rules
    g.n = players
    g.teams = players == 4
    g.army = g.r.army_size
    g.middle = g.r.army_size // 2
    g.cre = cspec
    g.eq = espec
    for p in range(2):
        g.n_champions[p] = len(champions[p])
        for k, c in enumerate(champions[p]):
            g.champions[p][k] = c
        g.n_people_deck[p] = len(people_decks[p])
        for k, c in enumerate(people_decks[p]):
            g.people_deck[p][k] = c
        g.n_team_seats[p] = 0
    g.n_eq_cards = len(equipment_deck)
    for k, c in enumerate(equipment_deck):
        g.eq_cards[k] = c
    for s in range(players):
        g.seats[s].people = people[s]
        g.team_seats[s % 2][g.n_team_seats[s % 2]] = s
        g.n_team_seats[s % 2] += 1
        kind, weights = bots[s]
        g.bots[s].kind = kind
        if weights:
            g.bots[s].w = weights
    for k, spec in enumerate(creatures):
        (cspec[k].people, cspec[k].damage, cspec[k].life, cspec[k].people_chance, cspec[k].tier, cspec[k].ability,
         cspec[k].ability_chance, cspec[k].ability_amount, cspec[k].points) = spec
    for k, spec in enumerate(equipment):
        (espec[k].kind, espec[k].hand, espec[k].damage, espec[k].life, espec[k].block, espec[k].armor,
         espec[k].effect, espec[k].amount, espec[k].duration, espec[k].points) = spec


cdef class _Views:
    """Typed views of the output columns, so the game loop writes them without the GIL."""
    cdef int8_t[::1] first_side, winner_team, end_reason, errors
    cdef int16_t[::1] rounds
    cdef int32_t[::1] turns, fights
    cdef int16_t[::1] losses, destroyed, survivors, champion_alive, champion
    cdef uint64_t[::1] rng_state

    def __init__(self, dict c):
        self.first_side, self.winner_team, self.end_reason = c["first_side"], c["winner_team"], c["end_reason"]
        self.errors, self.rounds, self.turns, self.fights = c["errors"], c["rounds"], c["turns"], c["fights"]
        self.losses, self.destroyed, self.survivors = c["weighted_losses"], c["destroyed"], c["survivors"]
        self.champion_alive, self.champion = c["champion_alive"], c["champion"]
        self.rng_state = c["rng_state"]


cdef void card_rows(Game* g, CardRows* rows, int game) noexcept nogil:
    """The card table's rows of one game (sim.tales.game.card_rows): per seat, creatures fielded then
    equipment carried, by card id."""
    cdef int s, c, k, i, alive, carried
    cdef Seat* st
    for s in range(g.n):
        st = &g.seats[s]
        for c in range(MAXCRE):
            if st.fielded[c]:
                alive = 0
                for k in range(g.army):
                    alive |= st.slot[k] == c
                rows_push(rows, game, s, 0, c, c == st.champion, alive, st.kills[c])
        for c in range(MAXEQ):
            if st.gear_used[c]:
                carried = 0
                for k in range(g.army):
                    for i in range(st.n_gear[k]):
                        carried |= st.gear[k][i] == c
                rows_push(rows, game, s, 1, c, 0, carried, st.gear_kills[c])


cdef void _run(Game* g, _Views v, CardRows* rows, uint64_t master_seed, int64_t start, int64_t count):
    cdef int64_t i
    cdef int s, k, alive, n = g.n
    cdef int8_t[::1] first_side = v.first_side, winner_team = v.winner_team, end_reason = v.end_reason
    cdef int8_t[::1] errors = v.errors
    cdef int16_t[::1] rounds = v.rounds
    cdef int32_t[::1] turns = v.turns, fights = v.fights
    cdef int16_t[::1] losses = v.losses, destroyed = v.destroyed, survivors = v.survivors
    cdef int16_t[::1] champion_alive = v.champion_alive, champion = v.champion
    cdef uint64_t[::1] rng_state = v.rng_state
    cdef Seat* st
    with nogil:
        for i in range(count):
            pcg32_for_game(&g.rng, master_seed, <uint64_t>(start + i))
            play_game(g)
            first_side[i] = g.first_team
            winner_team[i] = g.winner_team
            end_reason[i] = g.end_reason
            rounds[i] = g.round
            turns[i] = g.turns
            fights[i] = g.fights
            errors[i] = g.error
            rng_state[i] = g.rng.state
            for s in range(n):
                st = &g.seats[s]
                losses[i * n + s] = st.losses
                destroyed[i * n + s] = st.destroyed
                champion[i * n + s] = st.champion
                alive = 0
                champion_alive[i * n + s] = 0
                for k in range(g.army):
                    if st.slot[k] != EMPTY:
                        alive += 1
                        if st.slot[k] == st.champion:
                            champion_alive[i * n + s] = 1
                survivors[i * n + s] = alive
            if rows != NULL:
                card_rows(g, rows, <int>i)
