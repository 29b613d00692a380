"""Bot kinds, for the importers that name them from here (the CLI's ``bots`` listing); the bot specs,
the random bot and each game's roster live in :mod:`sim.kit.bots`."""

from sim.kit.bots import BOT_KINDS

__all__ = ["BOT_KINDS"]
