# C types shared by the engine cores (docs/engine-kit.md). The kit's functions are in the .pxi files
# beside this one, which each engine module includes.
from libc.stdint cimport int64_t, uint8_t, uint64_t

# A set of up to 128 board cells: cell c is bit (c & 63) of w[c >> 6] (helpers in cells.pxi).
ctypedef struct Cells:
    uint64_t w[2]

# Rows of one fixed size appended game after game into a growing C buffer (rows.pxi): Paws' standings
# trace (one row of VP per round), Tales' card table (one CardRow per card of a seat).
ctypedef struct RowBuffer:
    char* data
    size_t n                      # rows pushed
    size_t cap                    # rows allocated
    size_t row_size               # bytes per row
    int failed                    # an allocation failed: the rows pushed since are lost (rows_array raises)

# A search bot's parameters (core/kit/search.pxi; sim.kit.bots.SearchParams, same names and order;
# tests/test_search_bots.py holds them together). One struct for every game's Bot.
ctypedef struct Search:
    int iterations                # mcts: search iterations (determinized simulations) per decision
    int rollouts                  # flat: rollouts per option
    int rollout                   # the rollout policy: an index into sim.kit.bots.ROLLOUTS (0 random, 1 heuristic)
    int depth                     # top-level decisions a rollout plays before it is evaluated; 0: to the end
    double c                      # mcts: the UCB exploration constant (rewards are in [0, 1])

# A batch's decision traces (trace.pxi; docs/decision-trace.md): one byte string per game, appended game
# after game into one growing buffer; starts[i] is where game i's begins (starts[count]: the end).
ctypedef struct DecisionTrace:
    uint8_t* data
    size_t n                      # bytes written
    size_t cap                    # bytes allocated
    int failed                    # an allocation failed: the batch's traces are lost (the caller raises)

# What a search saw at one decision, for the trace's note (search.pxi fills it when asked): the options
# it rated highest, best first, with their share of the root's visits (mcts) or mean reward (flat).
ctypedef struct SearchNote:
    int kind                      # NOTE_VISITS (mcts) or NOTE_REWARD (flat), trace.pxi
    int n                         # options noted, at most 3
    int option[3]                 # their indexes among the listed options
    double value[3]               # visit share or mean reward, in [0, 1]
    int budget                    # the search's iterations (mcts) or rollouts per option (flat)
    double* shares                # NULL, or filled with every listed option's value (training samples)

# A learned bot's model (learned.pxi; sim/kit/learned.py, docs/learned-bots.md): a linear policy that scores
# each option of a decision from the game's declared option features, and a linear value head that rates
# each seat's chance to win from its declared seat features (a softmax over the seats).
# A network model adds to each linear score a small network's (one hidden layer of ReLU units): the policy's
# sees the option's features and the state as the deciding seat sees it (every seat's features, from the
# deciding seat round the table), the value head's the state as each seat sees it. Its weights are one
# float32 block on the heap, owned by the Model that load_model filled (free_model frees it; a copy of a
# Game made by the search shares it and frees nothing). A model may also carry a decisions block: linear
# weights for the game's other decisions (Paws: combat cards, defenders, monsters kept, cards taken,
# discards), each over that decision's own features; owned the same way.
cdef enum:
    MAXFEAT = 64                  # features of an option, or of a seat
    MAXHIDDEN = 128               # a network's hidden units
    MAXKINDS = 8                  # decision kinds a model's decisions block may hold weights for

ctypedef struct Model:
    int n_policy                  # the game's option features (0: no model)
    int n_value                   # the game's seat features
    double policy[MAXFEAT]        # weights of the option features
    double value[MAXFEAT]         # weights of the seat features
    int hidden                    # the network's hidden units (0: a linear model, no network)
    int n_state                   # the state encoding's length: the seats the core holds times n_value
    float* net                    # the network's weights (NULL: none), laid out as learned.pxi net_layout says
    double* decisions             # the decisions block (NULL: none): MAXKINDS * MAXFEAT weights, a decision kind
                                  # k's at decisions[k * MAXFEAT] (the game's learned_decision_features), owned
                                  # like net
    int decided                   # bit k: the block holds weights for decision kind k (its seat decides it)

# A batch's training samples for the learned bots (learned.pxi; cluster/train_bot.py): at every decision a
# search bot takes, one row per option (its features and its share of the search) and one row per seat
# (its features; the game's outcome is joined from the record). The row structs are each game's.
ctypedef struct Samples:
    RowBuffer options
    RowBuffer seats
    int game                      # the batch offset of the game being played

# A batch's win-probability trace (winprob.pxi; sim/kit/winprob.py, the win_prob table): on request, at the
# start of every turn and once when a game ends, the oracle's value head rates every seat's chance to win
# and a row (the game's ValueRow) is appended. Games with no trace (Game.vtrace NULL) pay one test a turn.
ctypedef struct ValueTrace:
    RowBuffer rows                # one ValueRow per turn begun and one per game's end
    RowBuffer* features           # NULL, or each row's seat features (N_VALUE doubles per seat, MAXP seats):
                                  # the tests' independent check of the value head (the scenario modules)
    Model model                   # the oracle: its value head rates the seats
    int game                      # the batch offset of the game being played

# One batch's options, filled once from the Python side's (inputs.pxi batch_options; sim.games.BatchOptions, built
# from a BatchRequest by sim.kit.batch.core_options, whose attributes of the same names the struct copies): which
# games to play and what to record beside the records.
ctypedef struct BatchOptions:
    uint64_t seed                 # the master seed: game k plays the random stream of (seed, k)
    int64_t start                 # the first game's index
    int64_t count                 # games in the batch: start .. start + count - 1
    bint cards                    # also the cards table's rows (the game's CardRow per card of a seat)
    bint trace                    # also every game's decision trace (trace.pxi)
    bint samples                  # also the search bots' decisions as the learned bots' training samples
    bint values                   # also each seat's chance by the oracle's value head (winprob.pxi)
