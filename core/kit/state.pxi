# The engine kit's game copy. A game's whole state is its Game struct: plain values and fixed arrays,
# whose only pointers are to the batch's card specs, which no game changes. So a copy is one memcpy,
# and the copy plays on exactly like the original, from the same generator state (g.rng is in the
# struct): a search bot can copy a game at a decision and simulate ahead with the real rules
# (Paws in Peril: set the copy's stop_at and call play_from, core/paws/game.pxi; docs/engine-kit.md).
#
# Contract: the including module defines ``Game`` and cimports memcpy (libc.string).

cdef inline void copy_game(Game* dst, const Game* src) noexcept nogil:
    """An independent copy of a game in progress (``dst`` must not overlap ``src``)."""
    memcpy(dst, src, sizeof(Game))
