# Paws in Peril engine core: C types. Each field mirrors the reference engine (sim/paws/state.py);
# enumeration values mirror sim/paws/kinds.py. The Python side is the source of truth for the rule
# parameters, bot weights, enumerations, card specs and the game record: sim.paws.core_engine.DECLARATIONS
# says which Python declaration each struct and enum follows, and tests/test_core_declarations.py holds
# this file to them.
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from core.kit.types cimport Cells, DecisionTrace, Model, RowBuffer, Samples, Search, ValueTrace
from core.rng cimport pcg32_t

cdef enum:
    MAXP = 4            # seats
    MAXC = 127          # cells of a radius-6 hex board
    MAXCARDS = 512      # item copies in a deck (also the hand capacity)
    MAXMON = 128        # monster copies in the deck (also the capacity of what one player owns)
    MAXOPT = 16384      # options of one decision
    MAXITEMIDS = 128    # distinct item cards (ids) in a card file: the cards table's counters
    MAXMONIDS = 32      # distinct monster cards (ids) in a card file
    NOBODY = -1
    NO_CELL = -1
    FAR = 255
    UNKNOWN = -1000000            # a cached value not worked out yet
    FORBIDDEN = -1000000          # restricted play: a forbidden action's score (sim.paws.bots.heuristic)

# how a combat roll draws its dice (sim.paws.rules.DICE_STREAMS)
cdef enum:
    DS_CLASSIC = 0
    DS_TABLE = 1

# Tile
cdef enum:
    T_EMPTY = 0
    T_DESERT = 1
    T_HOME = 2
    T_MANSION = 3
    T_CHEST = 4
    T_FOREST = 5

# Timing
cdef enum:
    TIMING_ON_TURN = 0
    TIMING_IN_COMBAT = 1
    TIMING_ANYTIME = 2

# Effect
cdef enum:
    E_NONE = 0
    E_HEAL = 1
    E_FIGHT_BONUS = 2
    E_ROLL_BONUS = 3
    E_ESCAPE = 4
    E_GRENADE = 5
    E_SNARE = 6
    E_POISON = 7
    E_EXTRA_AP = 8
    E_GAIN_BARRICADE = 9
    E_TELEPORT = 10
    E_WARD = 11
    E_REFLECT = 12
    E_DRAW = 13

# Buff
cdef enum:
    B_NONE = 0
    B_FIGHT_SCORE = 1
    B_REGEN = 2
    B_EXTRA_AP = 3
    B_GUARD = 4
    B_RAID_SCORE = 5
    B_HAND = 6

# Action
cdef enum:
    A_END_TURN = 0
    A_MOVE = 1
    A_LOOT = 2
    A_BUY = 3
    A_RAID = 4
    A_INVADE = 5
    A_BARRICADE = 6
    A_PLACE_TILE = 7
    A_PLAY_ITEM = 8

# Decision
cdef enum:
    D_ACTION = 0
    D_COMBAT_CARD = 1
    D_DEFENDER = 2
    D_KEEP_MONSTER = 3
    D_TAKE_CARD = 4
    D_DISCARD = 5
    D_PLACE_FREE = 6

# Fight kind
cdef enum:
    F_MONSTER = 0
    F_INVASION = 1
    F_RAID = 2

# end_reason: index into sim.paws.record.END_REASONS
cdef enum:
    R_VP = 0                      # a player or team reached the VP target (§13)
    R_LAST_ALIVE = 1              # the others are out of lives (§1)
    R_ROUND_LIMIT = 2             # the round_limit rule ended it
    R_STALLED = 3                 # no winner after max_rounds

# the cards table's monster counters: index into sim.paws.record.MONSTER_COUNTERS
cdef enum:
    MC_FIGHTS = 0                 # §5 monster fights the seat fought against the card
    MC_BEATEN = 1                 # ... won by the seat
    MC_INVADED = 2                # §6 invasions by the seat that the card defended
    MC_DEFENDED = 3               # invasions of the seat's building that the card defended
    MC_HELD = 4                   # ... in which the invader did not take the building
    MC_CAPTURED = 5               # taken from another seat (§6.3, §8.2)
    MC_KEPT = 6                   # kept through the seat's own knockout (§8.3)
    N_MC = 7

# Bot kind: index into sim.bots.BOT_KINDS
cdef enum:
    BOT_RANDOM = 0
    BOT_HEURISTIC = 1
    BOT_MCTS = 2                  # search bots (core/kit/search.pxi): the ACTION decisions by search,
    BOT_FLAT = 3                  # the others by the heuristic with the bot's weights
    BOT_LEARNED = 4               # the learned bot (core/kit/learned.pxi): the ACTION decisions by its model

ctypedef struct ItemSpec:
    int timing
    int effect
    int amount
    int turns

ctypedef struct MonsterSpec:
    int hp
    int buff
    int amount

# A batch's unshuffled decks (paws/inputs.pxi load_decks): what setup_game deals every game of the batch from.
ctypedef struct Decks:
    int16_t ideck[MAXCARDS]       # item card ids, one per copy (the rule set's item deck)
    int16_t mdeck[MAXMON]         # monster card ids, one per copy
    int n_ideck                   # item cards in ideck
    int n_mdeck                   # monster cards in mdeck

# every numeric rule parameter of sim.paws.rules.PawsRules, same names (bools as 0/1)
ctypedef struct Rules:
    int vp_target
    int vp_target_2p_explorer
    int team_vp_target
    int vp_per_knockout
    int lives
    int start_hp
    int max_hp
    int respawn_hp
    int starting_items
    int respawn_items
    int ap_per_turn
    int building_fights_per_turn
    int raids_per_turn
    int desert_heal
    int chest_cards
    int forest_barricades
    int mansion_monsters
    int monster_dice
    int mansion_monster_hp_bonus
    int defender_edge
    int leader_rule
    int raid_rolls
    int raid_grabs_cards
    int knockout_cards_taken
    int keep_one_monster
    int invasion_knockout_scores
    int knockout_cancels_effects_on_victim
    int out_of_game_takes_card
    int hand_limit
    int unruled_cards
    int player_dice
    int scored_dice
    int dice_stream         # DS_*
    int beginner_mansions
    int beginner_homes
    int beginner_chests
    int beginner_forests
    int explorer_mansions_2p
    int explorer_homes_2p
    int explorer_chests_2p
    int explorer_forests_2p
    int explorer_mansions
    int explorer_homes
    int explorer_chests
    int explorer_forests
    int explorer_radius
    int round_limit
    int max_rounds
    int max_actions_per_turn
    int max_fight_rolls

# heuristic bot weights (sim.paws.bots.heuristic.HeuristicWeights)
ctypedef struct Weights:
    int aggression
    int heal_threshold
    int raid_appetite
    int invade_min_hp
    int home_min_hp
    int mansion_min_hp
    int escape_hp
    int step_cost
    int forbid          # restricted play: the Action value never taken (0: none)

ctypedef struct Bot:
    int kind            # BOT_*
    Weights w           # the heuristic's weights (a search bot's: its rollouts and its other decisions)
    Search s            # a search bot's parameters
    pcg32_t rng         # a search bot's own stream (search_stream: master seed, game index, seat)
    Model model         # a learned bot's, or a search bot's with model= (n_policy 0: none)

ctypedef struct Player:
    int hp
    int lives
    int pos                       # board cell; 0 = Desert
    int16_t items[MAXCARDS]       # item card ids in hand, in the order gained
    int n_items
    int16_t tk[16]                # hand cards by turn_kind code (TK_*, items.pxi), kept with items
    int16_t monsters[MAXMON]      # monster card ids owned, in the order gained
    int8_t active[MAXMON]         # monsters[i]'s buff works
    int n_monsters
    int barricades                # held, not placed
    int tiles[4]                  # Explorer tiles held: mansion, home, chest, forest
    int knockout_vp
    int knockouts
    int knockouts_dealt
    int protected                 # Smoke Bomb: cannot be attacked until its next turn
    int poison_ticks
    int poisoner
    int snared[MAXP]              # AP lost next turn, by the seat that snared
    int16_t item_plays[MAXITEMIDS]          # the cards table: times this seat played each item card id
    int16_t monster_stats[MAXMONIDS][N_MC]  # ... and its MC_* counters per monster card id

ctypedef struct Fight:
    int kind
    int seats[2]                  # [starter, other or NOBODY for a monster]
    int roll
    int attacker
    int monster_hp
    int bonus[2]
    int roll_bonus[2]
    int reflect[2]
    int escaped

cdef enum:
    MAXLEVELS = 16                # distinct cell worths in one look (at most 6 + MAXP are used)

# The heuristic bot's view of the board in one ACTION decision (core/paws/heuristic.pxi): the cells
# worth something (cell_value > 0), grouped by worth, highest first. It stays right while the state
# it reads is unchanged: take_turn keeps it (look_ok) across a MOVE, which changes nothing it reads.
ctypedef struct Look:
    int hand_limit                # g.hand_limit(seat)
    int leader                    # g.sole_leader(), or UNKNOWN until first needed
    int n_levels
    int level_value[MAXLEVELS]    # decreasing, all > 0
    Cells level_cells[MAXLEVELS]  # the cells with cell_value(c) == level_value[i] (disjoint)
    int moves[MAXC]               # move_score(c) of a tiled cell, worked out in this look if moves_at[c] == stamp
    int moves_at[MAXC]            # the look (stamp) moves[c] was worked out in
    int stamp                     # this look's number: 1, 2, ... in a game (setup_game zeroes the Look)

# The game record (sim.paws.record.RECORD_COLUMNS): the columns the core fills, same names and order;
# the batch loop writes one per game into a numpy structured array of the declaration's dtype.
ctypedef struct GameRecord:
    int8_t first_seat
    int8_t winner_seat
    int8_t winner_team
    int8_t end_reason             # R_*
    int16_t rounds
    int32_t turns                 # counted in place (Game.rec) as the game goes
    int32_t idle_turns            # counted in place: turns that ended with no action taken
    int8_t vp[MAXP]               # per seat, the first Game.n entries
    int8_t buildings[MAXP]
    int8_t lives_left[MAXP]
    int8_t knockouts[MAXP]
    int8_t knockouts_dealt[MAXP]
    int32_t building_fights       # counted in place
    int32_t invasions             # counted in place
    int32_t raids                 # counted in place
    int32_t items_played          # counted in place

# One row of the cards table, written by the core (card_rows, core/paws/game.pxi) and turned into Arrow
# columns by sim.paws.core_engine.cards_table.
ctypedef struct CardRow:
    int32_t game                  # offset in the batch
    int16_t card                  # item or monster card id
    int16_t plays                 # item: times played
    int16_t counts[N_MC]          # monster: the MC_* counters
    int8_t seat
    int8_t kind                   # 0 item, 1 monster

# One round's row of the standings trace (the record's vp_trace): each seat's VP after the round.
ctypedef struct Standings:
    int8_t vp[MAXP]

ctypedef struct Game:
    Rules r
    int n                         # players
    int explorer                  # board: 0 beginner, 1 explorer
    int teams                     # mode: 0 ffa, 1 teams
    int ncells
    const ItemSpec* items         # card data, by id
    const MonsterSpec* mons
    int8_t turn_kind[MAXITEMIDS]  # by card id: how it is played on a turn (TK_*, items.pxi), from items
    Bot bots[MAXP]
    pcg32_t rng
    int nbrs[MAXC][6]
    int tile[MAXC]
    int owner[MAXC]
    int brick[MAXC]
    int barricade[MAXC]
    # kept with owner/brick/barricade by set_owner(), set_brick(), set_barricade() (common.pxi):
    int n_owned[MAXP]             # homes and mansions each seat owns
    Cells owned_by[MAXP + 1]      # owned_by[s + 1]: cells with owner s (owned_by[0]: owner NOBODY)
    Cells bricked                 # cells with a brick
    Cells barricaded              # cells with a barricade
    Cells barricaded_by[MAXP]     # ... placed by that seat
    # derived from tile[] by board_changed() (common.pxi), read-only everywhere else:
    int n_tiled
    int tiled[MAXC]               # cells with a tile, ascending
    int n_tn[MAXC]
    int tn[MAXC][6]               # tn[c][:n_tn[c]]: the neighbours of c with a tile, in direction order
    int n_place
    int place[MAXC]               # Explorer placement cells: empty, touching a tile, ascending
    Cells of_kind[6]              # cells by tile
    uint8_t dist[MAXC][MAXC]      # walking distance over tiled cells, FAR where there is no path
    int n_rings[MAXC]             # rings[ring_at[c] + d] (d < n_rings[c]): the cells d steps from c
    int ring_at[MAXC]
    Cells rings[MAXC * MAXC]
    Cells dist_cells              # the tiled cells dist[][] and rings were computed for
    int dist_valid                # 0 until dist[][] has been computed once in this batch
    Player players[MAXP]
    int16_t monster_deck[MAXMON]  # top = end
    int n_monster_deck
    int16_t item_deck[MAXCARDS]   # top = end
    int n_item_deck
    int16_t item_discard[MAXCARDS]
    int n_item_discard
    int first_seat
    int round
    int seat                      # whose turn it is, NOBODY between turns
    int ap
    int building_fights_left
    int raids_left
    Fight* fight                  # the fight in progress, or NULL
    int over
    int winner_seat
    int winner_team
    int end_reason                # R_*, -1 until the game is over
    int error                     # an option list overflowed: the game is void
    GameRecord rec                # the record's counters, counted here as the game goes (zeroed by
                                  # setup_game); record_game() fills in the rest at the end
    # where a game stands between two top-level decisions, so that play_from() can continue a copy:
    int in_round                  # a round is in progress (its standings row not yet written)
    int turn_of                   # turns of this round begun or skipped, in seat order from first_seat
    int actions                   # actions taken in the turn in progress
    int turn_knockouts            # the turn's player's knockouts when it began (one more ends the turn)
    int64_t decisions             # top-level decisions (turn actions) taken in the game
    int64_t stop_at               # play_from() stops before decision number stop_at; -1: never
    int64_t searches              # decisions taken by a search bot (not a record column: the batch sums them)
    int64_t rollouts              # their simulations (mcts iterations, flat rollouts)
    DecisionTrace* dtrace         # where ask() records each choice (trace.pxi), or NULL: no trace;
                                  # a search's copies of the game never record
    Samples* samples              # where a search bot's decisions are written as training samples, or NULL
    ValueTrace* vtrace            # where each turn's win chances are written (winprob.pxi), or NULL: none;
                                  # a search's copies of the game never write
    int learned_best              # the heuristic's pick at the decision being scored (a learned feature)
    Look look                     # the heuristic's last look at the board
    int look_ok                   # look is still right (cleared by any action but a move)
    # one decision's options: (a, b, c) triples
    int n_opt
    int opt_a[MAXOPT]
    int opt_b[MAXOPT]
    int opt_c[MAXOPT]
