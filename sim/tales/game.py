"""Tales are Real reference engine: the round loop (Game Flow) and the game record.

``play_game`` is the readable truth that the engine core must match record for record. Game
``game_index`` draws from ``Rng.for_game(master seed, game index)`` only, in this order: Game Setup
(sim/tales/setup.py), then per round: 1. Recruitment (recruitment.py), 2. Equipment (equipment.py),
3. Battle (battle.py, with potions.py, damage.py, abilities.py). Every module docstring lists its draws.

Porting notes (for a C version with fixed arrays):

* State is per seat (``state.Seat``): deck / hand / graveyards as int stacks (top = end), the battle
  line as ``army_size`` slots of (card id or -1, damage taken, exhausted, gear ids, potion effect /
  amount / fights left, doomed), and per-card counters indexed by card id. Nothing else is random or
  hidden; derived values (life left, attack, gear armor, hands used) are recomputed from the line.
* Every random number is either ``die()`` (``below(6) + 1``) or a random bot's ``below(len(options))``.
  A decision with one option is never asked and draws nothing. Bot option lists are built in the
  orders the modules state (seats ascending, slots ascending, hand positions ascending).
* Round: ready everyone; recruitment (round 1: RETURN decisions; later: refill, no draws); equipment
  (draw, then per seat EQUIP/DISCARD decisions); battle (who-begins dice, then per fight: ATTACKER,
  Provoke roll, PROVOKE or DEFENDER, POTION x2, First Strike rolls, strikes; see battle.py).
* A strike's dice: shields (gear order) until one blocks, Evade, Death Blow, Armor (if damage),
  Shadow Form (if damage), Regeneration (if damage and alive), Area Damage chance (damage.py).
* The heuristic bot rolls nothing and uses integer scores only; ties go to the first option.
"""

from __future__ import annotations

from sim.record_schema import reference_record
from sim.rng import Rng
from sim.tales.battle import battle
from sim.tales.bots import make_bots
from sim.tales.cards import TalesCards, load_cards
from sim.tales.equipment import equipment
from sim.tales.kinds import Act, Decision
from sim.tales.record import RECORD_COLUMNS
from sim.tales.recruitment import line, recruitment
from sim.tales.rules import TalesRules, TalesSetup
from sim.tales.setup import setup_game
from sim.tales.state import EMPTY, NOBODY, Game
from sim.tales.victory import by_losses


def play_round(g: Game) -> None:
    """One round: every creature is ready again, then Recruitment, Equipment and Battle."""
    g.round += 1
    g.emit("round", f"= Round {g.round}")
    for st in g.seats:
        st.exhausted = [0] * g.army
    recruitment(g)
    equipment(g)
    battle(g)
    for s in range(g.n):
        g.emit("line", f"{g.seat_name(s)}: {line(g, s)}  (losses {g.seats[s].losses}, graveyard: "
                       f"{', '.join(g.cards.creatures[c].name for c in g.seats[s].graveyard) or 'empty'})", s, 1)


def new_game(setup: TalesSetup, rules: TalesRules, cards: TalesCards, master_seed: int, game_index: int,
             log: list | None = None, bots: list | None = None) -> Game:
    bots = make_bots(setup.bots) if bots is None else bots
    return Game(setup, rules, cards, bots, Rng.for_game(master_seed, game_index), log)


def run(g: Game) -> None:
    """Play a set-up game to its end."""
    setup_game(g)
    while not g.over and g.round < g.rules.last_round():
        play_round(g)
    if not g.over:
        by_losses(g)
    g.settle_events()


def play_game(setup: TalesSetup, rules: TalesRules, master_seed: int, game_index: int,
              cards: TalesCards | None = None, log: list | None = None, stats: list | None = None,
              bots: list | None = None) -> dict:
    """Play one whole game and return its record; ``log`` collects the event log, ``stats`` card rows;
    ``bots`` seats other bots than the setup's (a decision trace's, sim/kit/trace.py)."""
    g = new_game(setup, rules, cards or load_cards(), master_seed, game_index, log, bots)
    run(g)
    if stats is not None:
        stats.extend(card_rows(g, master_seed, game_index))
    return record(g, master_seed, game_index)


def winner_people(g: Game) -> str:
    if g.winner_team == NOBODY:
        return ""
    names = {g.setup.people[s] for s in g.team_seats(g.winner_team)}
    return names.pop() if len(names) == 1 else "mixed"


def record(g: Game, master_seed: int, game_index: int) -> dict:
    """The game record: one row per game, the contract for everything downstream (sim/tales/record.py).

    The columns worked out here are listed; every other one is the Game's counter of the same name
    (per seat: the Seat's), so a new counter kept under its column's name needs no line here."""
    values = {
        "game": "tales", "ruleset": g.rules.ruleset, "mode": g.setup.mode, "players": g.n,
        "people": list(g.setup.people), "bots": list(g.setup.bots), "seed": master_seed, "game_index": game_index,
        "champion": [g.cards.creatures[st.champion].name for st in g.seats],
        "first_side": g.first_side,
        "winner_side": g.winner_team if g.n == 2 else NOBODY,
        "winner_people": winner_people(g),
        "rounds": g.round,
        "weighted_losses": [st.losses for st in g.seats],
        "survivors": [sum(1 for c in st.slot if c != EMPTY) for st in g.seats],
        "champion_alive": [st.champion in st.slot for st in g.seats],
    }
    return reference_record(RECORD_COLUMNS, values, g, g.seats, g.rules)


def card_rows(g: Game, master_seed: int, game_index: int) -> list[dict]:
    """The optional card table: one row per creature fielded and per equipment card carried, per seat."""
    rows = []
    for st in g.seats:
        won = st.team == g.winner_team
        base = {"seed": master_seed, "game_index": game_index, "mode": g.setup.mode, "seat": st.seat,
                "team": st.team, "people": g.setup.people[st.seat], "won": won, "draw": g.winner_team == NOBODY}
        for c in range(len(g.cards.creatures)):
            if st.fielded[c]:
                card = g.cards.creatures[c]
                rows.append({**base, "kind": "creature", "card": card.name, "tier": card.tier,
                             "champion": c == st.champion, "survived": c in st.slot, "kills": st.kills[c]})
        carried = [e for k in range(g.army) for e in st.gear[k]]
        for e in range(len(g.cards.equipment)):
            if st.gear_used[e]:
                rows.append({**base, "kind": "equipment", "card": g.cards.equipment[e].name, "tier": 0,
                             "champion": False, "survived": e in carried, "kills": st.gear_kills[e]})
    return rows


def option_words(g: Game, seat: int, kind, option) -> str:
    """One option of a decision in the book's words (search notes and trace errors name options so): a
    creature ("Commander 2's Grey Wolf"), an equipment action ("equip their Grey Wolf with Short Sword"),
    a card from the hand."""
    hand = g.seats[seat].hand
    if kind == Decision.CHAMPION:
        return g.cards.creatures[option].name
    if kind == Decision.RETURN:
        return f"put back {g.cards.creatures[option].name}"
    if kind == Decision.ATTACKER:
        return f"attack with {g.name(option)}"
    if kind == Decision.DEFENDER:
        return f"defend with {g.name(option)}"
    if kind == Decision.PROVOKE:
        return f"provoke {g.name(option)}"
    if kind == Decision.DISCARD:
        return f"discard {g.cards.equipment[hand[option]].name}"
    if kind == Decision.POTION:
        return "no potion" if option == NOBODY else f"drink {g.cards.equipment[hand[option]].name}"
    if kind == Decision.EQUIP:
        act, a, b, c = option
        if act == Act.PASS:
            return "pass"
        if act == Act.SWAP:
            return "swap"
        if act == Act.EQUIP:
            whose = "their " + g.card((b, c)).name if b == seat else g.name((b, c))
            return f"equip {whose} with {g.cards.equipment[hand[a]].name}"
        whose = "their " + g.card((a, b)).name if a == seat else g.name((a, b))
        return f"take {g.cards.equipment[g.seats[a].gear[b][c]].name} back from {whose}"
    return str(option)
