"""Game-agnostic pieces of the reference engines, shared by every game (the Python twin of ``core/kit/``).

* :mod:`sim.kit.state`   what every game's state holds: rules, cards, bots, random stream, log; the
  ``ask``/``choose`` hook through which every decision reaches a seat's bot
* :mod:`sim.kit.decks`   card piles as int lists with the top at the end: draw, put under, reshuffle
* :mod:`sim.kit.bots`    bot specs (``random``, ``heuristic:aggression=3``), the random bot, a game's roster
* :mod:`sim.kit.presets` named rule presets with validated overrides

The random generator itself (PCG32, ``die``/``below``/``shuffle``) is :mod:`sim.rng`, the twin of
``core/rng.pxd``; rule and weight parameters are declared with :mod:`sim.params`.
"""
