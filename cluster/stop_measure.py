"""Games spent by a precision-driven sweep (from its manifest) against fixed-size sweeps of the same precision.

Usage: ``python -m cluster.stop_measure RESULTS_DIR HALF_WIDTH`` (docs/sweeps.md, "Stopping when the answer is
precise enough"). The fixed sizes are computed, not played: the fewest games per cell whose fixed-n Wilson
interval, or whose confidence sequence, has that half-width at a given share.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cluster.manifest import ManifestError, load_manifest
from infra.sequential import games_for_half_width
from infra.stats import wilson_games


def compare(out: str | Path, half_width: float) -> list[str]:
    """The comparison, one line per design."""
    m = load_manifest(out)          # the one bounded reader (infra.folder)
    if m is None or "stop" not in m:
        raise SystemExit(f"{out}: no precision-driven sweep here (no manifest.json with [stop])")
    spent = sum(r.get("games", 0) for r in m["runs"])
    kept = sum(c["stop"]["games"] for c in m["cells"])
    shares = [c["stop"]["estimate"] for c in m["cells"]]
    cells, top = len(shares), max(shares)
    w_half, cs_half = wilson_games(0.5, half_width), games_for_half_width(half_width, 0.5)
    w_top, cs_top = wilson_games(top, half_width), games_for_half_width(half_width, top)
    w_each = sum(wilson_games(p, half_width) for p in shares)
    cs_each = sum(games_for_half_width(half_width, p) for p in shares)
    return [
        f"{cells} cells, half-width {half_width}: precision-driven sweep kept {kept:,} games, spent {spent:,} "
        f"(discarded {spent - kept:,}); reasons {m['stop']['cells']}",
        f"fixed n for every cell, p unknown (p = 0.5): Wilson {w_half:,}/cell = {cells * w_half:,}; "
        f"CS {cs_half:,}/cell = {cells * cs_half:,}",
        f"fixed n for every cell, knowing the largest share ({top:.4f}): Wilson {w_top:,}/cell = {cells * w_top:,}; "
        f"CS {cs_top:,}/cell = {cells * cs_top:,}",
        f"per-cell oracle n at each cell's estimate: Wilson {w_each:,}; CS {cs_each:,}",
    ]


if __name__ == "__main__":
    try:
        print("\n".join(compare(sys.argv[1], float(sys.argv[2]))))
    except ManifestError as e:
        raise SystemExit(f"error: {e}") from None
