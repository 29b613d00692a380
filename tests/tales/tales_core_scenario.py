"""The rulebook scenarios on the engine core: core twins of the reference functions the tests call.

``use_core(module, monkeypatch)`` swaps, in one test module's globals, every reference-engine function
the tests call (and every ``sim.tales`` module they call through, and the heuristic bot) for a twin that
runs the core's function of the same name through ``core.tales_scenario.CoreScenario``; the Game methods
the tests read (``life_left``, ``loss_weight``, ``on_field``) run on the core too. The twin loads the
whole state of the test's ``Game`` into the core, hands it the entries still queued in ``g.script``
(dice, picks and decisions, core/tales/script.pxi), and writes the state, the cards gone to the
graveyard and the script's consumption back into the same objects, so each test body and its assertions
stay as they are. A draw or decision the script does not expect fails with the harness's ScriptError.
Anything without a twin (other Game methods, Python-only helpers) still runs on the reference engine, on
the mirrored state.
"""

from __future__ import annotations

import types

from tales_scenario import Ask, Pick, ScriptError

from sim.kit.bots import core_weights
from sim.tales import battle, equipment, game, recruitment, setup, victory
from sim.tales.bots.heuristic import HeuristicBot
from sim.tales.core_engine import core_inputs
from sim.tales.kinds import Act, Decision
from sim.tales.state import Game

from script_queue import S_ASK, S_DIE, S_PICK, core_failure, encode_entry  # noqa: E402,F401  (kinds: core/tales/script.pxi)
calls = 0                             # core section functions run so far (the fixture checks a test ran one)


# -- a decision's options: the core lists (a, b, c, d) tuples, the reference engine its own values -------
def core_option(kind: Decision, value) -> tuple[int, int, int, int]:
    """The core's option tuple for a reference option value of decision ``kind`` (core/tales_types.pxd)."""
    if kind == Decision.EQUIP:                                   # (Act, a, b, c)
        return int(value[0]), int(value[1]), int(value[2]), int(value[3])
    if kind in (Decision.ATTACKER, Decision.DEFENDER, Decision.PROVOKE):   # (seat, slot)
        return int(value[0]), int(value[1]), 0, 0
    return int(value), 0, 0, 0          # CHAMPION, RETURN: a creature id; DISCARD, POTION: a hand position


def reference_option(kind: Decision, opt: tuple[int, int, int, int]):
    """The inverse of core_option."""
    a, b, c, d = opt
    if kind == Decision.EQUIP:
        return Act(a), b, c, d
    if kind in (Decision.ATTACKER, Decision.DEFENDER, Decision.PROVOKE):
        return a, b
    return a


def encode(entry) -> tuple[int, ...]:
    """One scenario entry as the core's (kind, x, y, option...)."""
    return encode_entry(entry, core_option, 4)


def failure(report: dict, queue: list, used: list) -> str:
    """The harness's ScriptError text for the first draw or decision of the core that did not match."""
    return core_failure(report, queue, used, Decision, reference_option)


def run(g: Game, name: str, *args):
    """Run the core's section function ``name`` on ``g``'s state with the queued script; mirror it back."""
    global calls
    from core.tales_scenario import CoreScenario
    bridge = getattr(g, "core_bridge", None)
    if bridge is None:
        bridge = g.core_bridge = CoreScenario(core_inputs(g.setup, g.rules, g.cards))
    s = g.script
    calls += 1
    result, report = bridge.run(g, name, args, [encode(e) for e in s.queue])
    for i in range(report["used"]):
        e = s.queue.popleft()
        if isinstance(e, Ask) and e.options is not None:
            options = [reference_option(e.kind, o) for o in report["seen"][i]]
            if options != list(e.options):
                raise ScriptError(f"seat {e.seat} {e.kind!r}: options {options}, expected {e.options}")
        s.used.append(e)
    if report["failed"] is not None:
        raise ScriptError(failure(report, list(s.queue), s.used))
    return result


# -- the twins, with the reference functions' signatures ----------------------------------------------
def setup_game(g):
    run(g, "setup_game")


def recruitment_(g):
    run(g, "recruitment")


def equipment_(g):
    run(g, "equipment")


def equip_seat(g, seat):
    run(g, "equip_seat", seat)


def options(g, seat):
    return [reference_option(Decision.EQUIP, o) for o in run(g, "options", seat)]


def can_carry(g, pos, equipment_id):
    return run(g, "can_carry", tuple(pos), equipment_id)


def can_take_off(g, pos, index):
    return run(g, "can_take_off", tuple(pos), index)


def fight(g, att, dfn):
    run(g, "fight", tuple(att), tuple(dfn))


def take_turn(g, team):
    run(g, "take_turn", team)


def battle_(g):
    run(g, "battle")


def who_begins(g):
    return run(g, "who_begins")


def play_round(g):
    run(g, "play_round")


def by_losses(g):
    run(g, "by_losses")


def life_left(g, pos):
    return run(g, "life_left", tuple(pos))


def loss_weight(g, creature_id):
    return run(g, "loss_weight", creature_id)


def on_field(g, team):
    return run(g, "on_field", team)


class CoreHeuristicBot(HeuristicBot):
    """The heuristic bot of the core (core/tales/heuristic.pxi) with this bot's weights."""

    def decide(self, g, seat: int, kind, options: list) -> int:
        return run(g, "decide", seat, int(kind), [core_option(kind, o) for o in options], core_weights(self.w))


TWINS = {
    setup.setup_game: setup_game, recruitment.recruitment: recruitment_, equipment.equipment: equipment_,
    equipment.equip_seat: equip_seat, equipment.options: options, equipment.can_carry: can_carry,
    equipment.can_take_off: can_take_off, battle.fight: fight, battle.take_turn: take_turn, battle.battle: battle_,
    battle.who_begins: who_begins, game.play_round: play_round, victory.by_losses: by_losses,
}
GAME_METHODS = {"life_left": life_left, "loss_weight": loss_weight, "on_field": on_field}


def twin(value):
    """The core twin of a reference function, a ``sim.tales`` module with its functions twinned, or None."""
    if value is HeuristicBot:
        return CoreHeuristicBot
    if isinstance(value, types.FunctionType):
        return TWINS.get(value)
    if isinstance(value, types.ModuleType) and value.__name__.startswith("sim.tales."):
        names = {k: TWINS[v] for k, v in vars(value).items() if isinstance(v, types.FunctionType) and v in TWINS}
        return types.SimpleNamespace(**{**vars(value), **names}) if names else None
    return None


def use_core(module, monkeypatch) -> None:
    """Point the reference functions a test module calls at their core twins (undone after the test)."""
    for name, value in list(vars(module).items()):
        core = twin(value)
        if core is not None:
            monkeypatch.setattr(module, name, core)
    for name, method in GAME_METHODS.items():
        monkeypatch.setattr(Game, name, method)
