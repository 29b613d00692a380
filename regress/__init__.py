"""Nightly balance regression: play a fixed suite, compare with a baseline (docs/regress.md).

``suite`` reads the suite file, ``runner`` plays it through the sweep machinery, ``digest`` and
``metrics`` (SQL per game in ``sql/<game>/``) summarise each cell, ``baseline`` reads and writes the
baseline JSON, ``compare`` and ``stats`` decide what moved, ``report`` and ``html`` write the report,
``regression`` ties them together and ``commands`` is ``playtest regress``.
"""
