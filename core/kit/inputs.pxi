# The engine kit's guard on a batch's inputs, and its options read once. A module fills its Rules and Weights
# structs from {name: int} dicts; converting a dict to a C struct raises on a missing field but silently drops an
# extra one, so a rule parameter or bot weight added on the Python side without its struct field would
# be ignored by the core. The module derives each struct's field names from the struct itself (convert
# a zeroed struct to a dict) and refuses any other key with refuse_unknown.


cdef refuse_unknown(str what, object given, tuple known):
    """Raise ValueError naming the keys of ``given`` that are not in ``known`` (a struct's fields)."""
    unknown = [k for k in given if k not in known]
    if unknown:
        raise ValueError(f"the core has no {what} {', '.join(map(str, unknown))}: its struct has only "
                         f"{', '.join(known)} (add the field to the .pxd, or play with the reference engine)")


cdef configure_bot(Bot* b, object spec, tuple weight_fields, tuple search_fields, int n_policy, int n_value):
    """One seat's bot from its spec as sim.kit.bots.BotRoster.core_bots gives it: (kind, weights), (kind,
    weights, search parameters) or (kind, weights, search parameters, model); a model is (option feature
    weights, seat feature weights), for a learned bot or a search with model=."""
    kind, weights, *more = spec
    b.kind = kind
    if weights:
        refuse_unknown("bot weight(s)", weights, weight_fields)
        b.w = weights
    if kind == BOT_MCTS or kind == BOT_FLAT:
        if not more or not more[0]:
            raise ValueError("a search bot needs its search parameters")
        refuse_unknown("search parameter(s)", more[0], search_fields)
        b.s = more[0]
        if b.s.iterations < 1 or b.s.rollouts < 1 or b.s.depth < 0:
            raise ValueError(f"search parameters out of range: {more[0]}")
    if len(more) > 1 and more[1] is not None:
        load_model(&b.model, more[1], n_policy, n_value)
    if kind == BOT_LEARNED and b.model.n_policy == 0:
        raise ValueError("a learned bot needs its model")


cdef BatchOptions batch_options(object options, object oracle) except *:
    """The BatchOptions struct filled once from ``options`` (sim.games.BatchOptions: the attributes named like the
    struct's fields); ``oracle``: the value head's model as the core takes it, or None."""
    cdef BatchOptions o
    memset(&o, 0, sizeof(BatchOptions))
    o.seed = options.seed
    o.start = options.start
    o.count = options.count
    if o.count < 0:
        raise ValueError(f"a batch of {o.count} games")
    o.cards = options.cards
    o.trace = options.trace
    o.samples = options.samples
    o.values = oracle is not None
    return o
