"""Nightly balance regression: play a fixed suite, compare with a baseline (docs/regress.md).

``suite`` reads the suite file, ``runner`` plays it through the sweep machinery, ``digest`` and
``metrics`` (SQL files each game brings in its package, ``sql/regress/``) summarise each cell,
``baseline`` reads and writes the baseline JSON, ``cells`` names cells across runs, ``compare`` (with
``infra.stats``) decides what moved, ``report`` and ``html`` write the report and ``regression`` ties
them together. ``playtest regress`` is ``cli/regress.py``; this package never imports the CLI.
"""
