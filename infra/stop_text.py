"""A [stop] cell's stopping state in words: what ``playtest sweep`` prints at a stopping sweep's end, the service's
job log and the report's page say the same line (cluster/ plays, queries/ reports: both read it from here)."""

from __future__ import annotations

from typing import Any


def _num(x) -> str:
    return "?" if not isinstance(x, (int, float)) or isinstance(x, bool) else f"{x:.4g}"


def stop_line(st: Any) -> str:
    """One cell's stopping state (a [stop] sweep's manifest ``cells[i].stop``) in words: the stopping metric with
    its confidence sequence, the one interval that stays valid after stopping on it."""
    if not isinstance(st, dict):
        return "no stopping state"
    interval = st.get("interval") if isinstance(st.get("interval"), list) and len(st["interval"]) == 2 else [None, None]
    reason = st.get("reason") or "still playing"
    why = {"narrow": "stopped: interval narrow enough", "accept": f"stopped: the claim {st.get('claim', '')} holds",
           "reject": f"stopped: the claim {st.get('claim', '')} fails", "cap": "stopped at the cap (max_games_per_cell)"}
    conf = st.get("confidence")
    games = st.get("games") if isinstance(st.get("games"), int) else 0
    return (f"{st.get('metric', '?')} = {_num(st.get('estimate'))} ({_num(interval[0])} to {_num(interval[1])}, "
            f"{_num(100 * conf) if isinstance(conf, (int, float)) else '?'}% confidence sequence) from "
            f"{games:,} games; {why.get(reason, str(reason))}")
