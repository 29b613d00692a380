"""The ``playtest`` command line, the top layer: every command module, on top of sim, cluster, queries
and regress (which never import it).

``main`` is the typer app (``playtest = "cli.main:app"``) and registers every command; ``common``
holds what all commands share (one-line errors, ranges, tables); ``play`` (play, run, bench),
``reference`` (rules, bots, columns), ``sweep`` (sweep, status), ``query`` (query, sql), ``compare``
and ``regress`` are the commands by area. Commands stay thin: they validate, then call the module
that does the work.
"""
