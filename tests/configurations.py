"""Every configuration of both games, as (rules, setup) pairs: Paws in Peril v4 and v3, both boards, 4, 3 and 2
players and Teams; Tales are Real's four modes (for the tests that hold a property in each)."""

PAWS = [(rules, {"board": board, **setup}) for rules in ("v4", "v3") for board in ("beginner", "explorer")
        for setup in ({"players": 4}, {"players": 3}, {"players": 2}, {"mode": "teams"})]
TALES = [(None, {"mode": mode}) for mode in ("standard", "2v2", "survive", "survive-2v2")]
