"""Hex board geometry (§2): cells in spiral order around the Desert, neighbours, distances.

Cell 0 is the Desert; ring k holds cells 3k(k-1)+1 .. 3k(k+1). Neighbour directions are numbered 0..5
and every list of moves or targets walks them in that order, in both engines.
"""

from __future__ import annotations

from functools import lru_cache

from sim.paws.kinds import Tile

# axial (q, r) steps, in the fixed direction order
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
MAX_RADIUS = 6
NO_CELL = -1
FAR = 255  # distance between cells with no path


@lru_cache(maxsize=None)
def geometry(radius: int) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...]]:
    """(coords, neighbours) of a hex grid of ``radius`` rings; neighbours[c][d] is a cell or NO_CELL."""
    coords = [(0, 0)]
    for k in range(1, radius + 1):
        q, r = DIRECTIONS[4][0] * k, DIRECTIONS[4][1] * k
        for d in range(6):
            for _ in range(k):
                coords.append((q, r))
                q, r = q + DIRECTIONS[d][0], r + DIRECTIONS[d][1]
    index = {c: i for i, c in enumerate(coords)}
    nbrs = tuple(tuple(index.get((q + dq, r + dr), NO_CELL) for dq, dr in DIRECTIONS) for q, r in coords)
    return tuple(coords), nbrs


def distances(tiles: list[int], nbrs) -> list[list[int]]:
    """All-pairs walking distance over cells that hold a tile (BFS from each); FAR where unreachable."""
    n = len(tiles)
    out = []
    for src in range(n):
        dist = [FAR] * n
        if tiles[src] != Tile.EMPTY:
            dist[src] = 0
            frontier = [src]
            while frontier:
                nxt = []
                for c in frontier:
                    for m in nbrs[c]:
                        if m != NO_CELL and tiles[m] != Tile.EMPTY and dist[m] == FAR:
                            dist[m] = dist[c] + 1
                            nxt.append(m)
                frontier = nxt
        out.append(dist)
    return out


def cell_name(cell: int) -> str:
    """A cell as the replay labels it: the Desert, then ring letter and place (A1..A6, B1..B12, ...)."""
    if cell == 0:
        return "Desert"
    k = 1
    while cell > 3 * k * (k + 1):
        k += 1
    return f"{chr(ord('A') + k - 1)}{cell - 3 * k * (k - 1)}"
