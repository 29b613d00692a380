"""Result directories for the query tests: a real small sweep (core games) in the sweep layout."""

from pathlib import Path

import pytest

from sim.games import get
from sim.output import write_parquet


def write_results(out: Path, cells: dict[str, dict], seed: int, games: int, batch: int) -> Path:
    """Play each cell (resolve() keyword arguments) and write ``out/games/cell=<id>/part-<batch>.parquet``."""
    for cell_id, kw in cells.items():
        m = get("paws").resolve(**kw)
        for b, lo in enumerate(range(0, games, batch)):
            t = m.play_batch(seed, lo, min(batch, games - lo))["games"]
            write_parquet([t], out / "games" / f"cell={cell_id}" / f"part-{b:05d}.parquet", m.schemas["games"])
    return out


SMALL_SWEEP = {  # the round-limit and Teams questions in miniature, plus a bot matchup
    "c000": dict(rules="v4", setup={"board": "beginner", "players": 2}),
    "c001": dict(rules="v4", setup={"board": "explorer", "players": 3}),
    "c002": dict(rules="v4", setup={"board": "beginner", "players": 4, "bots": "heuristic,random,heuristic,random"}),
    "c003": dict(rules="v4", setup={"board": "beginner", "mode": "teams"}, overrides={"team_vp_target": 4}),
    "c004": dict(rules="v4", setup={"board": "explorer", "mode": "teams"}, overrides={"round_limit": 20}),
}


@pytest.fixture(scope="session")
def small_sweep(tmp_path_factory) -> Path:
    """400 core games per cell, 5 cells, parts of 150 games (so a part is short: the layout, not a full batch)."""
    return write_results(tmp_path_factory.mktemp("sweep"), SMALL_SWEEP, seed=11, games=400, batch=150)
