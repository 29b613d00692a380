"""Card piles as lists of card ids with the top card at the end (``pile.pop()`` draws the top card)."""

from __future__ import annotations


def draw(pile: list[int], count: int) -> list[int]:
    """Up to ``count`` cards off the top of ``pile``, in the order drawn (fewer when it runs out)."""
    return [pile.pop() for _ in range(min(count, len(pile)))]


def put_under(pile: list[int], card: int) -> None:
    """Place ``card`` under the pile: it is drawn after every card already in it."""
    pile.insert(0, card)


def reshuffle(rng, pile: list[int], discard: list[int]) -> None:
    """Make an empty ``pile`` anew from the discard pile, then shuffle it (the discard pile is emptied)."""
    pile.extend(discard)
    discard.clear()
    rng.shuffle(pile)
