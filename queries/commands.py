"""``playtest query``: DuckDB SQL questions over game records."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from sim.cli import fail

COMMANDS = ("query",)


def query(sql: Annotated[Path, typer.Argument(help="a .sql file; the results are the view 'games'")],
          data: Annotated[str, typer.Option(help="Parquet file, folder or glob of game records")]) -> None:
    """Answer a question: run a DuckDB SQL file over game records and print the result table."""
    import duckdb
    from rich.table import Table
    if not sql.is_file():
        fail(f"{sql}: no such SQL file")
    path = Path(data)
    pattern = str(path / "**" / "*.parquet") if path.is_dir() else data
    con = duckdb.connect()
    try:
        con.execute(f"CREATE VIEW games AS SELECT * FROM read_parquet('{pattern.replace(chr(39), chr(39) * 2)}')")
        res = con.execute(sql.read_text())
    except duckdb.Error as e:
        fail(f"{sql} over {data}: {e}")
    table = Table(title=sql.stem)
    for name in [d[0] for d in res.description]:
        table.add_column(name, justify="right")
    for row in res.fetchall():
        table.add_row(*[str(v) for v in row])
    Console().print(table)
