"""The rulebook scenarios on the engine core: core twins of the reference functions the tests call.

``use_core(module, monkeypatch)`` swaps, in one test module's globals, every reference-engine function
the tests call (and every ``sim.paws`` module they call through) for a twin that runs the core's function
of the same name through ``core.paws_scenario.CoreScenario``, a test-only build of the core's rules with
scripted draws. The twin loads the whole state of the test's ``Game`` into the core, hands it the entries
still queued in ``g.script`` (dice, picks and decisions, core/paws/script.pxi), and writes the state and
the script's consumption back into the same objects, so each test body and its assertions stay as they are. A draw or decision the script does not expect fails
with the harness's ScriptError. After every call the core's own VP count must equal ``g.vp`` on the
mirrored state, and its kept owner/brick/barricade sets must agree with the arrays (checked in the
bridge). Anything without a twin (Game methods such as ``g.buff`` or ``g.neighbours``, Python-only
helpers such as ``barricade_cells``) still runs on the reference engine, on the mirrored state.
"""

from __future__ import annotations

import types

from scenario import Ask, Pick, ScriptError, begin_turn as reference_begin_turn

from sim.paws import actions, combat, game, invade, items, knockout, loot, raid, turn, winning
from core.paws_scenario import SCRIPT_KINDS
from sim.paws.core_engine import FIGHT_KINDS, core_inputs
from sim.paws.kinds import Action, Decision
from sim.paws.record import END_REASONS
from sim.paws.state import Game

from script_queue import S_ASK, S_DIE, S_PICK, core_failure, encode_entry  # noqa: E402

assert SCRIPT_KINDS == {"die": S_DIE, "pick": S_PICK, "ask": S_ASK}, "ScriptEntry.kind differs from the harness"
calls = 0                             # core section functions run so far (the fixture checks a test ran one)


# -- a decision's options: the core lists (a, b, c) triples, the reference engine its own values ----------
def core_option(kind: Decision, value) -> tuple[int, int, int]:
    """The core's option triple for a reference option value of decision ``kind``."""
    if kind == Decision.ACTION:                       # (Action, a, b)
        return int(value[0]), int(value[1]), int(value[2])
    if kind in (Decision.COMBAT_CARD, Decision.TAKE_CARD):   # (hand index, destination) / (ITEM|MONSTER, card)
        return int(value[0]), int(value[1]), 0
    if kind == Decision.PLACE_FREE:                   # a cell
        return 0, 0, int(value)
    return int(value), 0, 0                           # DEFENDER, KEEP_MONSTER, DISCARD: a card id


def reference_option(kind: Decision, opt: tuple[int, int, int]):
    """The inverse of core_option."""
    a, b, c = opt
    if kind == Decision.ACTION:
        return Action(a), b, c
    if kind in (Decision.COMBAT_CARD, Decision.TAKE_CARD):
        return a, b
    if kind == Decision.PLACE_FREE:
        return c
    return a


def encode(entry) -> tuple[int, ...]:
    """One scenario entry as the core's (kind, x, y, option...)."""
    return encode_entry(entry, core_option, 3)


def failure(report: dict, queue: list, used: list) -> str:
    """The harness's ScriptError text for the first draw or decision of the core that did not match."""
    return core_failure(report, queue, used, Decision, reference_option)


def run(g: Game, name: str, *args):
    """Run the core's section function ``name`` on ``g``'s state with the queued script; mirror it back."""
    global calls
    from core.paws_scenario import CoreScenario
    bridge = getattr(g, "core_bridge", None)
    if bridge is None:
        bridge = g.core_bridge = CoreScenario(core_inputs(g.setup, g.rules, g.cards), END_REASONS, FIGHT_KINDS)
    s = g.script
    queue = list(s.queue)
    tiles = list(g.tile)
    calls += 1
    result, report = bridge.run(g, name, args, [encode(e) for e in queue])
    if g.tile != tiles:
        g.board_changed()  # the reference engine's distances, for anything that reads them next
    for i in range(report["used"]):
        e = s.queue.popleft()
        if isinstance(e, Ask) and e.options is not None:
            options = [reference_option(e.kind, o) for o in report["seen"][i]]
            if options != list(e.options):
                raise ScriptError(f"seat {e.seat} {e.kind!r}: options {options}, expected {e.options}")
        s.used.append(e)
    if report["failed"] is not None:
        raise ScriptError(failure(report, list(s.queue), s.used))
    # the tests count VP with g.vp on the mirrored state: the core must count the same
    assert report["vp"] == [g.vp(seat) for seat in range(g.n)], f"{name}: the core's VP {report['vp']}"
    return result


# -- the twins, with the reference functions' signatures ----------------------------------------------
def setup_game(g):
    run(g, "setup_game")


def start_turn(g, seat):
    return run(g, "start_turn", seat)


def begin_turn(g, seat):
    g.seat = seat
    return start_turn(g, seat)


def take_turn(g, seat):
    run(g, "take_turn", seat)


def legal_actions(g, seat):
    return [(Action(k), a, b) for k, a, b in run(g, "legal_actions", seat)]


def apply_action(g, seat, act):
    run(g, "apply_action", seat, int(act[0]), act[1], act[2])


def loot_(g, seat):
    run(g, "loot", seat)


def lootable(g, seat):
    return run(g, "lootable", seat)


def claim_building(g, seat, cell):
    run(g, "claim_building", seat, cell)


def raid_(g, seat, target):
    run(g, "raid", seat, target)


def raid_targets(g, seat):
    return run(g, "raid_targets", seat)


def invade_(g, seat):
    run(g, "invade", seat)


def invadable(g, seat):
    return run(g, "invadable", seat)


def knock_out(g, victim, by, scores):
    run(g, "knock_out", victim, by, bool(scores))


def fight(g, f, dice, edge, max_rolls, grabs=False):
    return run(g, "fight", f, tuple(dice), tuple(edge), max_rolls, bool(grabs))


def turn_card_options(g, seat):
    return run(g, "turn_card_options", seat)


def attackable(g, seat, target):
    return run(g, "attackable", seat, target)


def check_vp(g, seat):
    run(g, "check_vp", seat)


def check_round_end(g):
    run(g, "check_round_end")


def play_round(g):
    g.trace.append(run(g, "play_round"))


TWINS = {
    game.setup_game: setup_game, game.play_round: play_round, turn.start_turn: start_turn, reference_begin_turn: begin_turn,
    turn.take_turn: take_turn, actions.legal_actions: legal_actions, actions.apply_action: apply_action,
    loot.loot: loot_, loot.lootable: lootable, loot.claim_building: claim_building, raid.raid: raid_,
    raid.raid_targets: raid_targets, invade.invade: invade_, invade.invadable: invadable,
    knockout.knock_out: knock_out, combat.fight: fight, items.turn_card_options: turn_card_options,
    items.attackable: attackable, winning.check_vp: check_vp, winning.check_round_end: check_round_end,
}


def twin(value):
    """The core twin of a reference function, a ``sim.paws`` module with its functions twinned, or None."""
    if isinstance(value, types.FunctionType):
        return TWINS.get(value)
    if isinstance(value, types.ModuleType) and value.__name__.startswith("sim.paws."):
        names = {k: TWINS[v] for k, v in vars(value).items() if isinstance(v, types.FunctionType) and v in TWINS}
        return types.SimpleNamespace(**{**vars(value), **names}) if names else None
    return None


def use_core(module, monkeypatch) -> None:
    """Point the reference functions a test module calls at their core twins (undone after the test)."""
    for name, value in list(vars(module).items()):
        core = twin(value)
        if core is not None:
            monkeypatch.setattr(module, name, core)
