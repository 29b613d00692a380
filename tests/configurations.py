"""Every configuration of both games, as (rules, setup) pairs, from the games' own declaration (``Game.configurations``):
Paws in Peril v4 and v3, both boards, 4, 3 and 2 players and Teams; Tales are Real's four modes (for the tests that
hold a property in each)."""

from sim.games import GAMES

PAWS = [(c.rules, dict(c.setup)) for c in GAMES["paws"].configurations]
TALES = [(c.rules, dict(c.setup)) for c in GAMES["tales"].configurations]
