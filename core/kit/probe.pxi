# The engine kit's decision probe, for the test-only modules (core/<game>_scenario.pyx): every decision of the
# kinds the game's script hook logs (its script.pxi calls probe_decision while ``probing`` is set), seen from
# inside a game: the options, their features for a model's decisions block, the bot's choice and the
# heuristic's pick, and the same on copies of the game with what the deciding seat cannot see re-dealt and the
# dice reseeded (the no-peeking tests of a decisions block: tests/test_learned_decisions.py and
# tests/test_learned_decisions_tales.py).
#
# Contract: the including module defines ``Game``, ``probing`` (its script.pxi), copy_game, heuristic_decide,
# learned_decision_features_at (core/kit/learned.pxi), pcg32_seed and pcg32_t, malloc and free, PausedGame,
# and these hooks:
#
#   object probe_options(Game* g)          the listed options as the probe logs them
#   object probe_hidden(Game* g, int observer)
#                                          what ``observer`` cannot see (compared before and after a re-deal)
#   int probe_choice(Game* g, int seat, int kind)     (nogil, noexcept)
#                                          the choice the seat's bot makes at the pending decision (as ask()
#                                          dispatches it, without the trace)
#   void probe_redeal(Game* c, int seat, pcg32_t* r)  (nogil, noexcept)
#                                          re-deal on ``c`` what ``seat`` cannot see, drawing from ``r``

_probe_log = []                       # decision_probe's entries, in the order the decisions were asked
_probe_redeals = ()                   # the seeds each probed decision is re-dealt with
_probe_errors = []


cdef void probe_decision(Game* g, int seat, int kind) noexcept with gil:
    """Log the pending decision: its options, their features (learned_decision_features), the bot's choice and
    the heuristic's pick; and the same on copies of the game with what the seat cannot see re-dealt and the
    dice reseeded (one copy per seed of _probe_redeals)."""
    cdef Game* c = NULL
    cdef pcg32_t r
    try:
        entry = {"seat": seat, "kind": kind, "options": probe_options(g),
                 "features": learned_decision_features_at(g, seat, kind), "choice": probe_choice(g, seat, kind),
                 "pick": heuristic_decide(g, seat, kind), "redealt": []}
        if _probe_redeals:
            c = <Game*>malloc(sizeof(Game))
            if c == NULL:
                raise MemoryError()
            before = probe_hidden(g, seat)
            for seed in _probe_redeals:
                copy_game(c, g)
                pcg32_seed(&r, seed, 7)
                probe_redeal(c, seat, &r)
                pcg32_seed(&c.rng, seed + 1000, 11)
                entry["redealt"].append({
                    "hidden_changed": probe_hidden(c, seat) != before, "options": probe_options(c),
                    "features": learned_decision_features_at(c, seat, kind), "choice": probe_choice(c, seat, kind)})
        _probe_log.append(entry)
    except BaseException as e:
        _probe_errors.append(repr(e))
    finally:
        free(c)


cdef object run_probe(dict inputs, uint64_t master_seed, int64_t game_index, tuple redeals):
    """Game ``game_index`` played to the end as PausedGame plays it with the probe on: (the log, the record)."""
    global probing, _probe_log, _probe_redeals, _probe_errors
    _probe_log, _probe_redeals, _probe_errors = [], tuple(redeals), []
    probing = 1
    try:
        pg = PausedGame(inputs, master_seed, game_index, -1)
    finally:
        probing = 0
    if _probe_errors:
        raise RuntimeError(f"decision_probe: {_probe_errors[0]}")
    return _probe_log, pg.record()
