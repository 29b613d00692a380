"""Shared infrastructure over the game registry, used by no game: result folders and their storage (local or
``s3://``), progress lines, the statistics (``infra.stats``: one Wilson, one z, the equivalence test, confidence
sequences in ``infra.sequential``), the user's filter expressions (``infra.sql_expr``), stop metrics and derived
columns over a sweep's records, and the core speed bench.

Its layer sits above ``sim`` (it may read the game registry and parameter declarations) and below ``cluster`` and
``queries``, which both use it (tests/test_layers.py)."""
