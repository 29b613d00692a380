"""Pure-Python twin of the engine core's random generator (``core/rng.pxd``), bit for bit.

PCG32 (XSH-RR, 64-bit state) seeded per game by SplitMix64 from (master seed, game index), so any game
of a batch can be replayed alone. ``below(n)`` draws without modulo bias by rejection, the same way in
both engines; every die, shuffle and random bot choice goes through it.
"""

from __future__ import annotations

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1
PCG_MULT = 6364136223846793005


def splitmix64(x: int) -> int:
    """One SplitMix64 output for input ``x`` (a 64-bit mixing function)."""
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def game_seed(master_seed: int, game_index: int) -> int:
    """The 64-bit seed of game ``game_index`` of a batch with ``master_seed``."""
    return splitmix64((splitmix64(master_seed & M64) + (game_index & M64)) & M64)


class Rng:
    """PCG32 generator; ``Rng.for_game(master, index)`` is the stream of one game."""

    __slots__ = ("state", "inc")

    def __init__(self, seed: int, stream: int = 0):
        self.inc = ((stream << 1) | 1) & M64
        self.state = 0
        self.next32()
        self.state = (self.state + (seed & M64)) & M64
        self.next32()

    @classmethod
    def for_game(cls, master_seed: int, game_index: int) -> "Rng":
        s = game_seed(master_seed, game_index)
        return cls(s, splitmix64(s) >> 1)

    def next32(self) -> int:
        old = self.state
        self.state = (old * PCG_MULT + self.inc) & M64
        xorshifted = (((old >> 18) ^ old) >> 27) & M32
        rot = old >> 59
        return ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & M32

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) for 1 <= n < 2**32 (rejection sampling, no modulo bias)."""
        threshold = ((1 << 32) - n) % n
        while True:
            r = self.next32()
            if r >= threshold:
                return r % n

    def die(self) -> int:
        """One six-sided die, 1..6."""
        return self.below(6) + 1

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place, from the last position down (the core does the same)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
