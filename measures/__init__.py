"""The measures a designer asks beyond the records (restricted play, card worth), answered from a sweep's folder.

A measure is played as an ordinary sweep (cluster/) and read back with the locked DuckDB connection (queries/);
its answer needs both (the folder's parts, and its spec's cells and card files), so it sits above them, beside
the nightly regression. The command line (cli/) and the report page's builder call the same functions.
"""
