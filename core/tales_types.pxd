# Tales are Real engine core: C types. Each field mirrors the reference engine (sim/tales/state.py);
# enumeration values mirror sim/tales/kinds.py; capacities mirror sim/tales/rules.py and cards.py. The
# Python side is the source of truth for the rule parameters, bot weights, enumerations, card specs and
# the game record: sim.tales.core_engine.DECLARATIONS says which Python declaration each struct and enum
# follows, and tests/test_core_declarations.py holds this file to them.
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from core.kit.types cimport DecisionTrace, Model, Samples, Search, ValueTrace
from core.rng cimport pcg32_t

cdef enum:
    MAXSEATS = 4        # 2 vs. 2
    MAXTEAMSEATS = 2    # seats of one team
    MAXPAIRINGS = 2     # opposing pairings, one equipment deck each
    MAXARMY = 8         # rules.MAX_ARMY: slots of a battle line
    MAXHANDS = 4        # rules.MAX_HANDS: gear carried by one creature
    MAXPEOPLE = 40      # cards.MAX_CREATURES_PER_PEOPLE
    MAXCRE = 80         # creature cards of both peoples
    MAXEQ = 80          # distinct equipment cards (each has at least one copy)
    MAXEQDECK = 80      # cards.MAX_EQUIPMENT_COPIES: one pairing's equipment deck
    MAXHAND = 160       # a hand: its pairing's deck plus cards taken off the teammate's creatures
    MAXOPT = 4096       # options of one decision (equipment: hand x target seats x slots + take-offs)
    EMPTY = -1
    NOBODY = -1
    FORBIDDEN = -1000000          # restricted play: a forbidden option's score (sim.tales.bots.heuristic)
    FORBID_POTION = 4             # restricted play: no potion (sim.tales.bots.heuristic.FORBID)

# People
cdef enum:
    P_ANIMALIS = 0      # Regeneration
    P_SCHATTEN = 1      # Shadow Form

# Ability
cdef enum:
    AB_NONE = 0
    AB_FIRST_STRIKE = 1
    AB_DEATH_BLOW = 2
    AB_AREA_DAMAGE = 3
    AB_PROVOKE = 4
    AB_ARMOR = 5
    AB_EVADE = 6

# Kind
cdef enum:
    K_MELEE = 0
    K_RANGED = 1
    K_SHIELD = 2
    K_POTION = 3

# Hand
cdef enum:
    H_NONE = 0
    H_MAIN = 1
    H_OFF = 2
    H_BOTH = 3

# Effect
cdef enum:
    E_NONE = 0
    E_HEAL = 1
    E_STRENGTH = 2
    E_ARMOR = 3
    E_FIRST_STRIKE = 4

# Decision
cdef enum:
    D_CHAMPION = 0
    D_RETURN = 1
    D_EQUIP = 2
    D_DISCARD = 3
    D_ATTACKER = 4
    D_DEFENDER = 5
    D_PROVOKE = 6
    D_POTION = 7

# Act (equipment-phase actions)
cdef enum:
    ACT_PASS = 0
    ACT_SWAP = 1
    ACT_EQUIP = 2
    ACT_UNEQUIP = 3

# Stage: the phase of the round in progress (Game.stage), where play_from() goes on
cdef enum:
    ST_NONE = 0         # no round in progress (before the first, between rounds, at the end)
    ST_RECRUIT = 1      # 1. Recruitment: round 1's returns, seat by seat (Game.serving, Game.drawn)
    ST_EQUIP = 2        # 2. Equipment: the seats' actions in seat order (Game.serving, Game.equip_actions)
    ST_BATTLE = 3       # 3. Battle: turns of the teams (Game.active, Game.turn_team, Game.pick)

# end_reason: index into sim.tales.kinds.END_REASONS
cdef enum:
    R_CHAMPION_KILLED = 0
    R_LOSSES = 1
    R_DRAW = 2
    R_LAST_STANDING = 3

cdef enum:
    BOT_RANDOM = 0
    BOT_HEURISTIC = 1
    BOT_MCTS = 2                  # search bots (core/kit/search.pxi, core/tales/search.pxi): the top-level
    BOT_FLAT = 3                  # decisions by search, the Champion and potions by the heuristic
    BOT_LEARNED = 4               # the learned bot: not in this core yet (sim.tales.plugin refuses it)

ctypedef struct CreatureSpec:
    int people          # P_*
    int damage
    int life
    int people_chance   # people ability: a roll of this or higher
    int tier
    int ability         # AB_*
    int ability_chance  # 0: no roll
    int ability_amount  # area damage / armor
    int points          # equipment points

ctypedef struct EquipSpec:
    int kind            # K_*
    int hand            # H_*
    int damage
    int life
    int block           # shields: block chance
    int armor           # equipment-step reduction
    int effect          # potions: E_*
    int amount
    int duration        # potions: fights it lasts
    int points          # equipment points required

# a choice-valued rule parameter is passed as the index of its value in the choices of its twin in
# sim.tales.rules.TalesRules (tales_engine.CHOICES lists them; sim.tales.core_engine checks they agree)
cdef enum:
    POTION_LASTS_TURN = 0   # potion_lasts = turn: a potion works until the creature's turn is finished
    POTION_LASTS_CARD = 1   # potion_lasts = card: for the card's duration in fights (the old reading)
    SURVIVE_END_PLAYER = 0  # survive_end = player: Survive! ends when one player has no creature left
    SURVIVE_END_TEAM = 1    # survive_end = team: when a whole team has none (the old 2 vs. 2 reading)

# every rule parameter of sim.tales.rules.TalesRules but ruleset, same names (bools as 0/1, choices as
# their index)
ctypedef struct Rules:
    int game_rounds
    int survive
    int max_rounds
    int army_size
    int first_draw
    int first_place
    int equipment_draw
    int swap_cost
    int swap_gain
    int hands
    int points_budget
    int max_equip_actions
    int potions_per_fight
    int potion_lasts        # POTION_LASTS_*
    int team_attackers
    int loss_normal
    int loss_elite
    int elite_min_tier
    int champion_death_ends
    int survive_end         # SURVIVE_END_*

# heuristic bot weights (sim.tales.bots.heuristic.HeuristicWeights)
ctypedef struct Weights:
    int aggression
    int caution
    int kill_bonus
    int champion_guard
    int swap_min_useless
    int potion_eagerness
    int forbid          # restricted play: the Act value never taken, FORBID_POTION: no potion (0: none)

ctypedef struct Bot:
    int kind            # BOT_*
    Weights w           # the heuristic's weights (a search bot's: its rollouts and its other decisions)
    Search s            # a search bot's parameters
    pcg32_t rng         # a search bot's own stream (search_stream: master seed, game index, seat)
    Model model         # a learned bot's, or a search bot's with model= (n_policy 0: none)

# A creature on the field is (seat, slot).
ctypedef struct Pos:
    int seat
    int slot

# One commander. The graveyards of the reference's Seat are not kept: nothing in the records reads them
# (losses and destroyed count what goes there).
ctypedef struct Seat:
    int team                      # seat % 2
    int pairing                   # seat // 2: its equipment deck
    int people                    # P_*
    int champion                  # creature id chosen face down
    int16_t deck[MAXPEOPLE]       # creature ids, top = end
    int n_deck
    int16_t hand[MAXHAND]         # equipment ids, in the order gained
    int n_hand
    int slot[MAXARMY]             # creature id, EMPTY
    int damage[MAXARMY]           # damage taken (persists across rounds)
    int exhausted[MAXARMY]        # 1 after fighting this round
    int16_t gear[MAXARMY][MAXHANDS]   # equipment ids carried, in the order equipped
    int n_gear[MAXARMY]
    int potion_effect[MAXARMY]    # lasting potion: E_*, its amount, fights left
    int potion_amount[MAXARMY]
    int potion_left[MAXARMY]
    int doomed[MAXARMY]           # destroyed in the fight being resolved
    int losses                    # weighted losses (the record's destroyed is counted in Game.rec)
    # per-card counters for the optional card table
    int8_t fielded[MAXCRE]        # the creature stood on this seat's field
    int16_t kills[MAXCRE]         # creatures it destroyed
    int8_t gear_used[MAXEQ]       # this seat's creatures carried the card
    int16_t gear_kills[MAXEQ]     # kills made by creatures while carrying it

# The game record (sim.tales.record.RECORD_COLUMNS): the columns the core fills, same names and order;
# the batch loop writes one per game into a numpy structured array of the declaration's dtype.
ctypedef struct GameRecord:
    int16_t champion[MAXSEATS]    # per seat (the first Game.n entries): the Champion's creature id
    int8_t first_side
    int8_t winner_team
    int8_t end_reason             # R_*
    int16_t rounds
    int32_t turns
    int32_t fights
    int16_t weighted_losses[MAXSEATS]
    int16_t destroyed[MAXSEATS]
    int16_t survivors[MAXSEATS]
    int8_t champion_alive[MAXSEATS]   # 0/1

# One row of the card table, written by the core and turned into Arrow columns by sim.tales.core_engine.
ctypedef struct CardRow:
    int32_t game                  # offset in the batch
    int16_t card                  # creature or equipment id
    int16_t kills
    int8_t seat
    int8_t kind                   # 0 creature, 1 equipment
    int8_t champion
    int8_t survived

ctypedef struct Game:
    Rules r
    int n                         # seats: 2, or 4 in 2 vs. 2
    int teams                     # 2 vs. 2
    int army                      # rules.army_size
    int middle                    # the Champion's slot
    const CreatureSpec* cre       # card data, by id
    const EquipSpec* eq
    int n_champions[2]            # per people: Champion ids, file order
    int champions[2][MAXPEOPLE]
    int n_people_deck[2]          # per people: the other creature ids, file order
    int people_deck[2][MAXPEOPLE]
    int n_eq_cards                # the equipment deck before shuffling: ids, one per copy, file order
    int eq_cards[MAXEQDECK]
    int n_team_seats[2]
    int team_seats[2][MAXTEAMSEATS]
    Bot bots[MAXSEATS]
    pcg32_t rng
    Seat seats[MAXSEATS]
    int16_t eq_deck[MAXPAIRINGS][MAXEQDECK]   # per pairing, top = end
    int n_eq_deck[MAXPAIRINGS]
    int round
    int first_side                # team that began the first battle
    int active                    # team whose turn it is
    Pos fight_att                 # the fight being resolved (potion decisions read it)
    Pos fight_dfn
    Pos attacker                  # chosen attacker while the defender is chosen
    int champion_fell[2]          # per team, in the fight being resolved
    int over
    int winner_team
    int end_reason                # R_*
    int error                     # an option list overflowed: the game is void
    GameRecord rec                # the record's counters (turns, fights, destroyed), counted here as the
                                  # game goes (zeroed by setup_game); record_game() fills in the rest
    # where a game stands between two top-level decisions, so that play_from() can continue a copy
    # (core/tales/game.pxi); a decision is pending while seat is set:
    int stage                     # ST_*: the phase of the round in progress
    int seat                      # the seat to take the pending top-level decision, NOBODY when none
    int asking                    # its kind: D_RETURN, D_EQUIP, D_DISCARD, D_ATTACKER, D_DEFENDER, D_PROVOKE
    int serving                   # recruitment, equipment: the seat being served (seats in order)
    int16_t drawn[MAXPEOPLE]      # recruitment: the creatures it drew and has not returned, in draw order
    int n_drawn
    int equip_actions             # equipment: actions the seat has taken this round
    int discards_left             # equipment: a swap in progress, hand cards still to discard
    int turn_team                 # battle: the team whose turn is in progress (or just ended), NOBODY
                                  # before the round's first turn
    int pick                      # battle: fights of the turn begun (2 vs. 2: the k-th attacker is next)
    int64_t decisions             # top-level decisions taken in the game
    int64_t stop_at               # play_from() stops before decision number stop_at; -1: never
    int64_t searches              # decisions taken by a search bot (not a record column: the batch sums them)
    int64_t rollouts              # their simulations (mcts iterations, flat rollouts)
    DecisionTrace* dtrace         # where ask() records each choice (trace.pxi), or NULL: no trace;
                                  # a search's copies of the game never record
    Samples* samples              # where a search bot's decisions are written as training samples, or NULL
    ValueTrace* vtrace            # where each turn's win chances are written (winprob.pxi), or NULL: none;
                                  # a search's copies of the game never write
    int learned_best              # the heuristic's pick at the decision being scored (a learned feature)
    # one decision's options: (a, b, c, d); EQUIP: (act, a, b, c); ATTACKER etc.: (seat, slot);
    # CHAMPION, RETURN: creature id; DISCARD, POTION: hand position (-1: no potion)
    int n_opt
    int opt_a[MAXOPT]
    int opt_b[MAXOPT]
    int opt_c[MAXOPT]
    int opt_d[MAXOPT]
