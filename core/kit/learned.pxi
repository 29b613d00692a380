# The engine kit's learned bots (docs/learned-bots.md): a linear policy over each option's features and a
# linear value head over each seat's features, both declared once per game (sim/<game>/bots/features.py)
# and computed by the game's hooks. A learned seat takes the option its policy scores highest (the first
# listed on ties: deterministic, no draw); a search bot with a model plays its simulations with the
# learned policy, expands first the untried option the policy prefers, and rates a simulation cut off by
# the depth cap with the value head.
#
# Contract: the including module defines ``Game`` (with ``bots[s].model``, ``n_opt``), ``MAXP``,
# ``N_POLICY``, ``N_VALUE`` (its feature counts, at most MAXFEAT), cimports Model (core/kit/types.pxd)
# and exp (libc.math), and defines these hooks (nogil, noexcept):
#
#   void learned_option_features(Game* g, int seat, int k, double* f)
#                                          option k's features for ``seat`` (N_POLICY values), from what
#                                          the seat can see
#   void learned_seat_features(Game* g, int seat, double* f)
#                                          seat ``seat``'s features (N_VALUE values), from what every
#                                          player can see
#   int learned_teams(Game* g)             1 if seats 0, 2 and 1, 3 play as two teams (the value head's
#                                          chance of a team is the sum of its seats')
#   bint learned_forbidden(Game* g, int forbid, int k)
#                                          restricted play: listed option k is of the kind ``forbid`` (a
#                                          Weights.forbid, 0: none) names, by the rule the game's heuristic
#                                          asks (its ``forbidden``)


cdef double LEARNED_FORBIDDEN = -1e300    # a forbidden option's score: below every score a model gives


cdef inline double model_dot(const double* w, const double* f, int n) noexcept nogil:
    cdef double s = 0
    cdef int i
    for i in range(n):
        s += w[i] * f[i]
    return s


cdef double learned_score(Game* g, const Model* m, int seat, int k) noexcept nogil:
    """The policy's score of option k of the listed options."""
    cdef double f[MAXFEAT]
    learned_option_features(g, seat, k, f)
    return model_dot(m.policy, f, m.n_policy)


cdef int learned_choose(Game* g, const Model* m, int seat, int forbid) noexcept nogil:
    """The listed option the policy scores highest; the first listed on ties. Restricted play (``forbid``,
    0: none): an option of the forbidden kind scores below every other and is not scored (the heuristic's
    rule: taken only when every option listed is forbidden, then the first listed)."""
    cdef int k, best = 0
    cdef double s, best_score = 0
    for k in range(g.n_opt):
        s = LEARNED_FORBIDDEN if forbid and learned_forbidden(g, forbid, k) else learned_score(g, m, seat, k)
        if k == 0 or s > best_score:
            best, best_score = k, s
    return best


cdef void learned_values(Game* g, const Model* m, double* out) noexcept nogil:
    """Each seat's chance to win by the value head: a softmax over the seats of their scores (Teams: each
    seat gets its team's chance, the sum of the two seats')."""
    cdef double f[MAXFEAT]
    cdef double z[MAXP]
    cdef double top = -1e300, total = 0, team[2]
    cdef int s, n = search_seats(g)
    for s in range(n):
        learned_seat_features(g, s, f)
        z[s] = model_dot(m.value, f, m.n_value)
        if z[s] > top:
            top = z[s]
    for s in range(n):
        z[s] = exp(z[s] - top)
        total += z[s]
    for s in range(n):
        out[s] = z[s] / total
    if learned_teams(g):
        team[0] = out[0] + out[2]
        team[1] = out[1] + out[3]
        for s in range(n):
            out[s] = team[s % 2]


cdef load_model(Model* m, object model, int n_policy, int n_value):
    """Fill ``m`` from (policy weights, value weights), which must be the game's feature counts long."""
    cdef int i
    policy, value = model
    if len(policy) != n_policy or len(value) != n_value or n_policy > MAXFEAT or n_value > MAXFEAT:
        raise ValueError(f"a model of {len(policy)} option and {len(value)} seat features; this core has "
                         f"{n_policy} and {n_value}")
    m.n_policy, m.n_value = n_policy, n_value
    for i in range(n_policy):
        m.policy[i] = policy[i]
    for i in range(n_value):
        m.value[i] = value[i]


cdef object learned_features_at(Game* g, int n_policy, int n_value):
    """The features at g's pending decision, for the test-only modules' PausedGame: (one list per listed
    option for the deciding seat, one list per seat); the options must be listed."""
    cdef double f[MAXFEAT]
    cdef int k, i, s, seat = g.seat
    learned_prepare(g, seat)
    opts = []
    for k in range(g.n_opt):
        learned_option_features(g, seat, k, f)
        opts.append([f[i] for i in range(n_policy)])
    seats = []
    for s in range(search_seats(g)):
        learned_seat_features(g, s, f)
        seats.append([f[i] for i in range(n_value)])
    return opts, seats
