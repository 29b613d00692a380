"""Stalls under strong play: the game or the bot? (docs/findings.md section 11; bench/stall-study.md).

Run from the repository root: ``nice -n 10 .venv/bin/python bench/stall-study.py [GAMES] [SAMPLE] [ROUND] [DICE]``
(defaults 4000, 24, 30, 3); ``... bench/stall-study.py --summarize`` writes the summaries and the .md again from
the JSON's games. Writes bench/stall-study.json, bench/stall-study.md and the replay pages
bench/stalls/*.html. Everything follows from the seeds: the held-out master seed 2^63 + 61
(cluster.strength.evaluation_seed, checked against both models' provenance) and the dice seeds derived from it
(sim.kit.handover.dice_seed).

For each learned bot (paws-3, then paws-2) in every seat of 4-player v4 Beginner games:
  1. GAMES games: the share that stalls (no winner by the 100-round cap, end reason 'stalled');
  2. the first SAMPLE stalled games by game index: each replayed in the reference engine from its decision trace,
     its position as round ROUND begins (sim.paws.stalls.position) and the play from there to the cap;
  3. each sampled game handed over at the first decision of round ROUND (sim.kit.handover: the same game walked
     in lockstep with a second copy set up with other bots) and continued
       a. by the same bots on the same dice (it must stall again: the game is a function of its seed),
       b. by mcts:iterations=256:depth=20:model=paws-3 in every seat, on the same dice,
       c. by the same bots and by the search in every seat, each on DICE other dice (the game's generator
          reseeded at the handover, the same reseeds for both: paired), the null for (b): do other dice alone
          break the stall?
       d. by the search in one seat at a time (the learned bot in the others), on the same dice.
  4. replay pages of four sampled games (bench/stalls/), each written by the `playtest play` command printed beside it.
"""
from __future__ import annotations

import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from cluster.strength import check_unseen, evaluation_seed
from infra.stats import paired_difference, wilson
from sim.events import EventLog
from sim.games import GAMES
from sim.kit import trace
from sim.kit.handover import dice_seed, hand_over, played_on
from sim.paws.record import END_REASONS
from sim.paws.stalls import ACTIONS, at_round, play_after, position, state_at_round

ARGS = [a for a in sys.argv[1:] if a != "--summarize"]
GAMES_N = int(ARGS[0]) if len(ARGS) > 0 else 4000
SAMPLE = int(ARGS[1]) if len(ARGS) > 1 else 24
ROUND = int(ARGS[2]) if len(ARGS) > 2 else 30
DICE = int(ARGS[3]) if len(ARGS) > 3 else 3
SEED = evaluation_seed(61)
BOTS = ("learned:model=paws-3", "learned:model=paws-2")
SEARCH = "mcts:iterations=256:depth=20:model=paws-3"
SETUP = {"board": "beginner", "players": 4}
STALLED = END_REASONS.index("stalled")
QUICK = 10                      # "broken quickly": a winner within this many rounds of the handover
PAGES = Path("bench/stalls")
T0 = time.time()


def say(text: str) -> None:
    print(f"[{time.time() - T0:6.0f} s] {text}", flush=True)


def match(bots: str):
    return GAMES["paws"].resolve("v4", setup={**SETUP, "bots": bots})


def rate(k: int, n: int) -> dict:
    low, high = wilson(k, n)
    return {"k": int(k), "n": int(n), "share": round(k / n, 4) if n else None, "ci95": [round(low, 4), round(high, 4)]}


def outcome(rec: dict, start: dict) -> dict:
    """A continuation's end, against the record at the handover ``start``."""
    broke = rec["end_reason"] != STALLED
    return {"end": END_REASONS[rec["end_reason"]], "winner": rec["winner_seat"],
            "rounds": rec["rounds"] - ROUND + 1 if broke else None,
            "knockouts": sum(rec["knockouts"]) - sum(start["knockouts"]),
            "dealt": [a - b for a, b in zip(rec["knockouts_dealt"], start["knockouts_dealt"])],
            "out": sum(1 for a, b in zip(rec["lives_left"], start["lives_left"]) if b > 0 >= a)}


def same_game(rec: dict, row: dict) -> bool:
    """A paused game's record and the batch's row of the same game agree on how it went."""
    return (END_REASONS[rec["end_reason"]] == row["end_reason"] and rec["winner_seat"] == row["winner_seat"]
            and rec["rounds"] == row["rounds"] and rec["vp"][:4] == row["vp"] and rec["vp_trace"] == row["vp_trace"])


def study_game(bot: str, index: int, row: dict) -> dict:
    """One stalled game: its position at ROUND, the play after it, and every continuation."""
    m = match(bot)
    _, blob = trace.core_game(m, SEED, index)
    log = EventLog()
    trace.replay(m, SEED, index, blob, log)
    pos = position(state_at_round(log.events, ROUND))
    out = {"game_index": index, "position": {**pos._asdict(), "standings": pos.standings},
           "play_after": play_after(log.events, ROUND)}
    h = hand_over(m, match(SEARCH), SEED, index, at_round(ROUND))
    start = h.original.record()
    out["handover_decision"] = h.decision
    same = played_on(h.original)
    out["same_bots_same_dice"] = {**outcome(same, start), "reproduces_the_game": same_game(same, row)}
    out["search_same_dice"] = outcome(played_on(h.successor), start)
    seeds = [dice_seed(SEED, index, j) for j in range(1, DICE + 1)]
    out["same_bots_other_dice"] = [outcome(played_on(h.original, s), start) for s in seeds]
    out["search_other_dice"] = [outcome(played_on(h.successor, s), start) for s in seeds]
    out["search_one_seat"] = []
    for seat in range(4):
        line = [bot] * 4
        line[seat] = SEARCH
        one = hand_over(m, match(",".join(line)), SEED, index, at_round(ROUND))
        out["search_one_seat"].append({"seat": seat, **outcome(played_on(one.successor), start)})
    return out


def broke(c: dict) -> int:
    return int(c["end"] != "stalled")


def quick(c: dict) -> int:
    return int(c["end"] != "stalled" and c["rounds"] <= QUICK)


def median_rounds(cs: list[dict]) -> float | None:
    r = [c["rounds"] for c in cs if c["rounds"] is not None]
    return statistics.median(r) if r else None


def paired(games: list[dict], a: str, b: str, by) -> dict:
    """b minus a, per position (the mean over its other dice), with a paired 95% interval over positions."""
    diffs = np.array([np.mean([by(c) for c in g[b]]) - np.mean([by(c) for c in g[a]]) for g in games])
    d, low, high, p = paired_difference(diffs)
    return {"difference": round(d, 4), "ci95": [round(low, 4), round(high, 4)], "p": round(p, 6),
            "positions": len(games)}


def summary(bot: str, rows: list[dict], games: list[dict]) -> dict:
    n = len(rows)
    stalled = [i for i, r in enumerate(rows) if r["end_reason"] == "stalled"]
    reached = {i for i, r in enumerate(rows) if r["rounds"] >= ROUND}
    k = len(games)
    flat = lambda key: [c for g in games for c in g[key]]
    one = flat("search_one_seat")
    won_one = [c for c in one if c["winner"] >= 0]
    after = {key: sum(g["play_after"][key] for g in games) for key in games[0]["play_after"]}
    actions = sum(after[a] for a in ACTIONS)
    kinds: dict = {}
    for g in games:
        kinds[g["position"]["kind"]] = kinds.get(g["position"]["kind"], 0) + 1
    return {
        "bot": bot, "games": n, "stalled": rate(len(stalled), n),
        "reached_round": rate(len(reached), n),
        "stalled_of_reached": rate(len(reached.intersection(stalled)), len(reached)),
        "sampled": [g["game_index"] for g in games],
        "position_kinds": kinds,
        "standings": sorted({g["position"]["standings"] for g in games}),
        "players_out_at_round": sum(len(g["position"]["out"]) for g in games),
        "play_after": after, "buy_share_of_actions": round(after["buy"] / actions, 4) if actions else None,
        "raids_per_round": round(after["raid"] / after["rounds"], 4) if after["rounds"] else None,
        "same_bots_same_dice": {"stalled_again": sum(1 - broke(g["same_bots_same_dice"]) for g in games),
                                "reproduce_the_game": sum(g["same_bots_same_dice"]["reproduces_the_game"] for g in games),
                                "of": k},
        "search_same_dice": {"broke": rate(sum(broke(g["search_same_dice"]) for g in games), k),
                             "within_10_rounds": rate(sum(quick(g["search_same_dice"]) for g in games), k),
                             "median_rounds": median_rounds([g["search_same_dice"] for g in games]),
                             "ends": _ends([g["search_same_dice"] for g in games]),
                             "broke_with_a_player_out": _through_out([g["search_same_dice"] for g in games]),
                             "knockouts_per_game": round(np.mean([g["search_same_dice"]["knockouts"] for g in games]), 2)},
        "same_bots_other_dice": _dice(flat("same_bots_other_dice")),
        "search_other_dice": _dice(flat("search_other_dice")),
        "won_by_a_leader": {key: _leaders(games, key) for key in ("search_same_dice", "same_bots_other_dice",
                                                                   "search_other_dice", "search_one_seat")},
        "search_minus_same_bots_other_dice": {"broke": paired(games, "same_bots_other_dice", "search_other_dice", broke),
                                              "within_10_rounds": paired(games, "same_bots_other_dice",
                                                                         "search_other_dice", quick)},
        "by_players_in": {str(n_in): _by(games, n_in) for n_in in sorted({4 - len(g["position"]["out"]) for g in games})},
        "search_one_seat": {"broke": rate(sum(map(broke, one)), len(one)),
                            "median_rounds": median_rounds(one),
                            "searching_seat_won": rate(sum(1 for c in won_one if c["winner"] == c["seat"]), len(won_one)),
                            "ends": _ends(one), "broke_with_a_player_out": _through_out(one)},
    }


def _dice(cs: list[dict]) -> dict:
    return {"broke": rate(sum(map(broke, cs)), len(cs)), "within_10_rounds": rate(sum(map(quick, cs)), len(cs)),
            "median_rounds": median_rounds(cs), "ends": _ends(cs), "broke_with_a_player_out": _through_out(cs),
            "knockouts_per_continuation": round(float(np.mean([c["knockouts"] for c in cs])), 2)}


def _by(games: list[dict], players_in: int) -> dict:
    """The positions with ``players_in`` players still in the game: how often each continuation found a winner."""
    these = [g for g in games if 4 - len(g["position"]["out"]) == players_in]
    flat = lambda key: [c for g in these for c in g[key]]
    return {"positions": len(these),
            "search_same_dice": rate(sum(broke(g["search_same_dice"]) for g in these), len(these)),
            "same_bots_other_dice": rate(sum(map(broke, flat("same_bots_other_dice"))), len(flat("same_bots_other_dice"))),
            "search_other_dice": rate(sum(map(broke, flat("search_other_dice"))), len(flat("search_other_dice")))}


def _leaders(games: list[dict], key: str) -> dict:
    """Of the continuations ``key`` with a winner, those won by a seat with the most VP at the handover (ties in)."""
    won = [(g["position"]["vp"], c) for g in games for c in (g[key] if isinstance(g[key], list) else [g[key]])
           if c["winner"] >= 0]
    return rate(sum(1 for vp, c in won if vp[c["winner"]] == max(vp)), len(won))


def _through_out(cs: list[dict]) -> dict:
    """Of the continuations with a winner, those in which a player went out of the game after the handover."""
    won = [c for c in cs if broke(c)]
    return rate(sum(1 for c in won if c["out"] > 0), len(won))


def _ends(cs: list[dict]) -> dict:
    out: dict = {}
    for c in cs:
        out[c["end"]] = out.get(c["end"], 0) + 1
    return out


def replay_command(bot: str, index: int, page: Path) -> list[str]:
    return ["playtest", "play", "paws", "--rules", "v4", "--setup", "board=beginner", "--setup", "players=4",
            "--bots", bot, "--seed", str(SEED), "--game-index", str(index), "--brief", "--html", str(page)]


def pages(per_bot: dict) -> list[dict]:
    """Replay pages of two sampled games a bot: the first whose position has a player out of the game and the
    first with all four players in, each written by its playtest play command (run as printed)."""
    PAGES.mkdir(exist_ok=True)
    out = []
    for bot, games in per_bot.items():
        picks = [next((g for g in games if g["position"]["out"]), None),
                 next((g for g in games if not g["position"]["out"]), None)]
        for g in filter(None, picks):
            page = PAGES / f"{bot.split('=')[-1]}-game-{g['game_index']}.html"
            cmd = replay_command(bot, g["game_index"], page)
            exe = Path(sys.executable).parent / "playtest"
            subprocess.run([str(exe), *cmd[1:]], check=True, stdout=subprocess.DEVNULL)
            out.append({"bot": bot, "game_index": g["game_index"], "page": str(page), "bytes": page.stat().st_size,
                        "command": shlex.join(cmd), "position": g["position"]})
    return out


def summarize() -> None:
    """``--summarize``: the summaries and bench/stall-study.md again from the games in bench/stall-study.json (the
    batches are played again, a few seconds; the continuations are read, not played)."""
    global ROUND
    result = json.loads(Path("bench/stall-study.json").read_text())
    ROUND = result["round"]
    for bot, entry in result["bots"].items():
        rows = batch_rows(bot, result["games"])
        entry["summary"] = summary(bot, rows, entry["games"])
    Path("bench/stall-study.json").write_text(json.dumps(result, indent=1) + "\n")
    Path("bench/stall-study.md").write_text(markdown(result))
    say("wrote bench/stall-study.json, bench/stall-study.md (summaries only)")


def batch_rows(bot: str, games: int) -> list[dict]:
    return match(bot).play_batch(SEED, 0, games)["games"].select(
        ["end_reason", "winner_seat", "rounds", "vp", "vp_trace"]).to_pylist()


def main() -> None:
    check_unseen("paws", list(BOTS) + [SEARCH], SEED)
    result: dict = {"seed": SEED, "seed_name": "2^63 + 61", "games": GAMES_N, "sample": SAMPLE, "round": ROUND,
                    "other_dice": DICE, "search": SEARCH, "setup": {"rules": "v4", **SETUP},
                    "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                             text=True).stdout.strip(),
                    "machine": f"{platform.node()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
                    "date": time.strftime("%Y-%m-%d"), "bots": {}}
    per_bot = {}
    for bot in BOTS:
        rows = batch_rows(bot, GAMES_N)
        stalled = [i for i, r in enumerate(rows) if r["end_reason"] == "stalled"][:SAMPLE]
        say(f"{bot}: {sum(r['end_reason'] == 'stalled' for r in rows)} of {GAMES_N} games stalled; "
            f"studying games {stalled}")
        games = []
        for n, i in enumerate(stalled):
            games.append(study_game(bot, i, rows[i]))
            g = games[-1]
            say(f"  {bot} game {i} ({n + 1}/{len(stalled)}): {g['position']['kind']} {g['position']['standings']}; "
                f"search {g['search_same_dice']['end']} in {g['search_same_dice']['rounds']}; "
                f"other dice: same bots {sum(map(broke, g['same_bots_other_dice']))}/{DICE}, "
                f"search {sum(map(broke, g['search_other_dice']))}/{DICE}; "
                f"one seat {sum(map(broke, g['search_one_seat']))}/4")
        per_bot[bot] = games
        result["bots"][bot] = {"summary": summary(bot, rows, games), "games": games}
    result["pages"] = pages(per_bot)
    result["seconds"] = round(time.time() - T0)
    Path("bench/stall-study.json").write_text(json.dumps(result, indent=1) + "\n")
    Path("bench/stall-study.md").write_text(markdown(result))
    say("wrote bench/stall-study.json, bench/stall-study.md")


def pct(r: dict) -> str:
    return f"{r['k']}/{r['n']} = {100 * r['share']:.1f}% [{100 * r['ci95'][0]:.1f}, {100 * r['ci95'][1]:.1f}]"


def markdown(res: dict) -> str:
    bots = res["bots"]
    cols = " | ".join(b.split("=")[-1] for b in bots)
    lines = [
        "# Stalls under strong play: the game or the bot? (bench/stall-study.py)", "",
        f"Command: `nice -n 10 .venv/bin/python bench/stall-study.py {res['games']} {res['sample']} {res['round']} "
        f"{res['other_dice']}` on {res['machine']}, {res['date']} (commit {res['commit']}), {res['seconds']} s. "
        f"4-player v4 Beginner, every seat the same learned bot, held-out master seed {res['seed_name']} "
        f"({res['seed']}); the search is `{res['search']}`. Each sampled stalled game is handed over at the first "
        f"decision of round {res['round']} (sim/kit/handover.py) and continued to the 100-round cap. Shares with "
        "Wilson 95% intervals; the other-dice continuations are several per position, so their Wilson intervals "
        "are too narrow, and the paired difference is taken over positions.", "",
        f"| | {cols} |", "|---|" + "---|" * len(bots),
    ]

    def row(label, f):
        lines.append(f"| {label} | " + " | ".join(f(b["summary"]) for b in bots.values()) + " |")

    row("games stalled", lambda s: pct(s["stalled"]))
    row(f"games reaching round {res['round']}", lambda s: pct(s["reached_round"]))
    row(f"... of those, stalled", lambda s: pct(s["stalled_of_reached"]))
    row("stalled games sampled (game indices)", lambda s: ", ".join(map(str, s["sampled"])))
    row(f"position at round {res['round']}", lambda s: ", ".join(f"{k} {v}" for k, v in s["position_kinds"].items()))
    row("VP of the players still in (highest first)", lambda s: ", ".join(s["standings"]))
    row("players already out of the game", lambda s: str(s["players_out_at_round"]))
    row(f"rounds {res['round']}-100: actions that buy an item card", lambda s: f"{100 * s['buy_share_of_actions']:.0f}%")
    row("... raids a round", lambda s: f"{s['raids_per_round']:.2f}")
    row("... knockouts, players out, homes claimed or taken (all sampled games)",
        lambda s: f"{s['play_after']['knockouts']}, {s['play_after']['out']}, "
                  f"{s['play_after']['claimed'] + s['play_after']['taken']}")
    row("(a) same bots, same dice: stalled again / reproduce the game",
        lambda s: f"{s['same_bots_same_dice']['stalled_again']}/{s['same_bots_same_dice']['of']} / "
                  f"{s['same_bots_same_dice']['reproduce_the_game']}/{s['same_bots_same_dice']['of']}")
    row("(b) search in every seat, same dice: a winner", lambda s: pct(s["search_same_dice"]["broke"]))
    row("... within 10 rounds; median rounds", lambda s: f"{pct(s['search_same_dice']['within_10_rounds'])}; "
                                                        f"{s['search_same_dice']['median_rounds']}")
    row("... how it ended", lambda s: json.dumps(s["search_same_dice"]["ends"]))
    row("... of the games won, a player went out of the game after the handover",
        lambda s: pct(s["search_same_dice"]["broke_with_a_player_out"]))
    row("... won by a seat with the most VP at the handover", lambda s: pct(s["won_by_a_leader"]["search_same_dice"]))
    row("(c) same bots, other dice: a winner", lambda s: pct(s["same_bots_other_dice"]["broke"]))
    row("... within 10 rounds; median rounds", lambda s: f"{pct(s['same_bots_other_dice']['within_10_rounds'])}; "
                                                        f"{s['same_bots_other_dice']['median_rounds']}")
    row("(c) search in every seat, other dice: a winner", lambda s: pct(s["search_other_dice"]["broke"]))
    row("... within 10 rounds; median rounds", lambda s: f"{pct(s['search_other_dice']['within_10_rounds'])}; "
                                                        f"{s['search_other_dice']['median_rounds']}")
    row("... search minus same bots, a winner (paired by position)",
        lambda s: _diff(s["search_minus_same_bots_other_dice"]["broke"]))
    row("... search minus same bots, within 10 rounds (paired)",
        lambda s: _diff(s["search_minus_same_bots_other_dice"]["within_10_rounds"]))
    row("... of the games won, a player went out: same bots / search",
        lambda s: f"{pct(s['same_bots_other_dice']['broke_with_a_player_out'])} / "
                  f"{pct(s['search_other_dice']['broke_with_a_player_out'])}")
    row("... won by a seat with the most VP at the handover: same bots / search",
        lambda s: f"{pct(s['won_by_a_leader']['same_bots_other_dice'])} / {pct(s['won_by_a_leader']['search_other_dice'])}")
    row("... knockouts a continuation: same bots / search",
        lambda s: f"{s['same_bots_other_dice']['knockouts_per_continuation']} / "
                  f"{s['search_other_dice']['knockouts_per_continuation']}")
    for n_in in ("4", "3"):
        row(f"positions with {n_in} players in: search same dice / same bots other dice / search other dice",
            lambda s, n_in=n_in: _by_text(s["by_players_in"].get(n_in)))
    row("(d) search in one seat, same dice: a winner", lambda s: pct(s["search_one_seat"]["broke"]))
    row("... the searching seat won (of the games won)", lambda s: pct(s["search_one_seat"]["searching_seat_won"]))
    lines += ["", "Replay pages (each written by the command beside it, from the repository root):", ""]
    for p in res["pages"]:
        pos = p["position"]
        lines.append(f"- `{p['page']}` ({p['bytes'] / 1e6:.1f} MB; {p['bot']}, game {p['game_index']}: at round "
                     f"{res['round']} {pos['kind']}, VP {pos['vp']}, out {pos['out']}): `{p['command']}`")
    return "\n".join(lines) + "\n"


def _by_text(b: dict | None) -> str:
    if not b:
        return "none"
    return " / ".join(f"{x['k']}/{x['n']}" for x in (b["search_same_dice"], b["same_bots_other_dice"],
                                                     b["search_other_dice"]))


def _diff(d: dict) -> str:
    return (f"{100 * d['difference']:+.1f} points [{100 * d['ci95'][0]:+.1f}, {100 * d['ci95'][1]:+.1f}] "
            f"({d['positions']} positions)")


if __name__ == "__main__":
    summarize() if sys.argv[1:] == ["--summarize"] else main()
