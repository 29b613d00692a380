"""Games spent by a precision-driven sweep (its manifest) against fixed-size sweeps of the same precision.

Usage: python docs/stop_measure.py RESULTS_DIR HALF_WIDTH (see docs/sweeps.md, "Stopping when the answer is precise enough")."""
import json
import sys

from sim.sequential import games_for_half_width, wilson_interval

out, hw = sys.argv[1], float(sys.argv[2])
m = json.load(open(f"{out}/manifest.json"))
spent = sum(r.get("games", 0) for r in m["runs"])
kept = sum(c["stop"]["games"] for c in m["cells"])

def wilson_n(p, hw):
    hi = 1
    while True:
        l, h = wilson_interval(hi, p * hi)
        if (h - l) / 2 <= hw: break
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        l, h = wilson_interval(mid, p * mid)
        if (h - l) / 2 <= hw: hi = mid
        else: lo = mid
    return hi

cells = len(m["cells"])
w_worst, cs_worst = wilson_n(0.5, hw), games_for_half_width(hw, 0.5)
pmax = max(c["stop"]["estimate"] for c in m["cells"])
w_oracle = sum(wilson_n(c["stop"]["estimate"], hw) for c in m["cells"])
cs_oracle = sum(games_for_half_width(hw, c["stop"]["estimate"]) for c in m["cells"])
w_max, cs_max = wilson_n(pmax, hw), games_for_half_width(hw, pmax)
print(f"{cells} cells, half-width {hw}: precision-driven sweep kept {kept:,} games, spent {spent:,} "
      f"(discarded {spent - kept:,}); reasons {m['stop']['cells']}")
print(f"fixed n for every cell, p unknown (p = 0.5): Wilson {w_worst:,}/cell = {cells * w_worst:,}; "
      f"CS {cs_worst:,}/cell = {cells * cs_worst:,}")
print(f"fixed n for every cell, knowing the largest share ({pmax:.4f}): Wilson {w_max:,}/cell = {cells * w_max:,}; "
      f"CS {cs_max:,}/cell = {cells * cs_max:,}")
print(f"per-cell oracle n at each cell's estimate: Wilson {w_oracle:,}; CS {cs_oracle:,}")
