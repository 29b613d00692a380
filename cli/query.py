"""``playtest query`` and ``playtest sql``: DuckDB questions over game records (see queries/sqlfiles.py and queries/connection.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import FORMATS, fail, note, render, warn
from queries import connection, errors, ratings, sources, sqlfiles
from cluster.skill import expand, level_order, read_plan
from cluster.spec import SpecError
from queries.variants import answer_per_variant, skill_lines

ResultsOpt = Annotated[Optional[list[str]], typer.Option(
    "--results", "--data", help="a sweep's results DIR, a Parquet file or a glob (repeatable); "
                                "all of them form the view 'games'")]
ParamOpt = Annotated[Optional[list[str]], typer.Option("--param", help="query parameter k=v (repeatable)")]
WhereOpt = Annotated[Optional[str], typer.Option(
    help="filter the games first: one boolean expression over their columns (constants, comparisons, AND/OR/NOT, "
         "IN, BETWEEN, LIKE and a few functions; no statements), e.g. \"board = 'explorer' AND players = 4\"")]
FormatOpt = Annotated[str, typer.Option("--format", help="table, csv, json or markdown")]
TimeoutOpt = Annotated[Optional[float], typer.Option(
    "--timeout", metavar="SECONDS", help=f"stop a statement that runs longer (default {connection.STATEMENT_TIMEOUT:g}, "
                                         f"{connection.MIN_TIMEOUT:g} to {connection.MAX_TIMEOUT:g}); Ctrl-C stops one too",
    show_default=False)]
MemoryOpt = Annotated[Optional[float], typer.Option(
    "--memory-limit", metavar="GIB", help=f"memory the locked connection may use, in GiB (default "
                                          f"{connection.MEMORY_SHARE:.0%} of this machine's)", show_default=False)]


def _limits(timeout: Optional[float], memory_gib: Optional[float]):
    """The statement limits the flags ask for (connection.limits), or one line naming the flag."""
    try:
        connection.check_limits(timeout, memory_gib)
    except errors.QueryError as e:
        fail(str(e))
    return connection.limits(timeout, memory_gib)


def _params(items: Optional[list[str]]) -> dict[str, str]:
    out = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            fail(f"--param {item!r}: expected name=value")
        out[key.strip()] = value.strip()
    return out


def query(name: Annotated[Optional[str], typer.Argument(help="a canned query name (see --list) or a .sql file")]
          = None,
          paths: Annotated[Optional[list[str]], typer.Argument(
              help="results to read, as with --results (playtest query skill_depth DIR)", show_default=False)]
          = None,
          results: ResultsOpt = None, param: ParamOpt = None, where: WhereOpt = None, fmt: FormatOpt = "table",
          pool: Annotated[Optional[list[str]], typer.Option(
              "--pool", help="sum over this variant column on purpose (repeatable); by default an answer is given "
                             "per value of every column that varies in the results")] = None,
          by: Annotated[Optional[list[str]], typer.Option(
              "--by", help="answer per value of this variant column, whatever the query groups by (repeatable): "
                           "--by bots gives one answer per bot line-up")] = None,
          list_: Annotated[bool, typer.Option("--list", help="list the canned queries and their questions")]
          = False, timeout: TimeoutOpt = None, memory_limit: MemoryOpt = None,
          html: Annotated[Optional[Path], typer.Option(
              "--html", metavar="PAGE", help="with a skill run's folder (playtest sweep SPEC --skill): also write a "
                                             "self-contained page of the answer against the levels' strength "
                                             "(docs/skill.md)", show_default=False)] = None) -> None:
    """Answer a question: a canned query (or any .sql file) over sweep results, with bound parameters.

    Never pooled silently: when the results vary in a column the query does not group by (a rule
    parameter, bots, card files), the answer is given per value of it, as its first columns. A .sql
    file holds one SELECT statement over the results' views, as the canned queries do (anything else
    is refused before the results are read); it runs on the locked connection."""
    if list_:
        for q in sqlfiles.available():
            params = ", ".join(f"{p.name}={','.join(map(str, p.default)) if isinstance(p.default, list) else p.default}"
                               for p in q.params.values())
            typer.echo(f"{q.name} [{q.game}]{' (' + params + ')' if params else ''}: {q.question}")
        return
    if name is None:
        fail("give a query name or .sql file (playtest query --list shows the canned ones)")
    if fmt not in FORMATS:
        fail(f"--format {fmt!r} is not available; expected one of {', '.join(FORMATS)}")
    drawn = _html_source(html, [*(paths or []), *(results or [])]) if html is not None else None
    with _limits(timeout, memory_limit):
        columns, rows, q, variants = _answer(name, paths, results, param, where, pool, by)
    typer.echo(render(q.name, columns, rows, fmt))
    if not rows:
        note(q.why_empty(where))
    summary = ratings.SUMMARIES.get(q.name) if q.path.parent == sqlfiles.QUERY_DIR else None
    sentence = summary(columns, rows) if summary and fmt == "table" and not variants.split else None
    if sentence:
        typer.echo(sentence)
    if fmt == "table":
        lines = skill_lines(columns, rows, q.columns, variants.split, levels=level_order([*(paths or []),
                                                                                          *(results or [])]))
        if lines:
            typer.echo("Bots are not people: does the answer hold under the other bots?")
            for line in lines:
                typer.echo(f"  {line}")
    if drawn is not None:
        _write_page(html, drawn, q, columns, rows, variants)


def _html_source(page: Path, given: list[str]) -> tuple[Path, dict, tuple]:
    """The skill folder ``--html`` draws (one, and nothing else given), its plan and its levels' ratings
    (queries.skill_page.level_ratings), checked with the page's place before the query runs; one line and exit 2
    otherwise."""
    from queries import skill_page
    from sim.files import unwritable
    try:
        skill = [r for r in given if "://" not in r and Path(r).is_dir() and read_plan(Path(r)) is not None]
    except SpecError as e:
        fail(str(e))
    if len(given) != 1 or len(skill) != 1:
        fail(f"--html {page}: draws one skill run's answer against its levels' strength; give its folder alone "
             "(playtest sweep SPEC --skill A,B --out DIR, then --results DIR)")
    why = unwritable(page)
    if why:
        fail(f"--html {page}: {why}")
    folder = Path(skill[0])
    plan = read_plan(folder)
    try:
        return folder, plan, skill_page.level_ratings(folder, plan.get("ladder"), plan["levels"])
    except errors.ResultsError as e:
        fail(str(e))


def _write_page(page: Path, source: tuple[Path, dict, tuple], q, columns, rows, variants) -> None:
    """The answer as a skill curve (queries/skill_page.py), written to ``page``."""
    import shlex
    import sys
    from queries import skill_page
    from sim.files import write_atomic
    folder, plan, (rated, report, said) = source
    command = ("playtest query " + shlex.join(sys.argv[2:])) if len(sys.argv) > 2 and sys.argv[1] == "query" else ""
    curve = skill_page.Curve(q.name, q.question, list(columns), list(rows), list(q.columns), list(variants.split),
                             list(plan["levels"]), rated, report, plan.get("ladder"), said, str(folder),
                             str(plan.get("spec", "")), command)
    try:
        write_atomic(page, skill_page.page(curve))
    except OSError as e:
        fail(f"--html {page}: cannot write the page ({e.strerror or e})")
    typer.echo(f"page: {page} (the answer against the levels' strength"
               + (")" if any(rated) else f"; {said})"), err=True)


def _answer(name, paths, results, param, where, pool, by):
    """query's work: (columns, rows, the query, how the answer was split); a user error is one line."""
    try:
        q = sqlfiles.load(name)
        values = sqlfiles.bind(q, _params(param))
        results = expand([*(paths or []), *(results or [])])       # a skill folder: every level's folder
        if not results:
            fail(f"query {q.name}: give --results DIR (a sweep's results, a Parquet file or a glob)")
        con = connection.connect(results, where)
        try:
            if sqlfiles.uses_seat_outcomes(q):
                connection.add_seat_outcomes(con, results)
            check = ratings.CHECKS.get(q.name) if q.path.parent == sqlfiles.QUERY_DIR else None
            problem = check(con, results) if check else None
            if problem:
                fail(f"query {q.name}: {', '.join(results)} is not a ladder's results: {problem}; it reads the "
                     "results of playtest ladder GAME --out DIR")
            columns, rows, variants = answer_per_variant(con, q, values, results, pool or (), by or ())
        finally:
            con.close()
        for line in sources.sweep_notes(results):
            warn(line)
        for line in variants.notes():
            note(line)
    except (errors.QueryError, errors.ResultsError, SpecError) as e:
        fail(str(e))
    except KeyboardInterrupt as e:        # Ctrl-C: in a statement (connection.Interrupted says which) or between
        fail(str(e) or f"query {name}: interrupted (Ctrl-C)", code=130)
    return columns, rows, q, variants


def sql(statement: Annotated[str, typer.Argument(help="SQL over the view 'games' (and the Wilson/round-limit "
                                                      "macros), e.g. \"SELECT board, count(*) FROM games GROUP BY 1\"")],
        results: ResultsOpt = None, param: ParamOpt = None, where: WhereOpt = None,
        fmt: FormatOpt = "table",
        read_only: Annotated[bool, typer.Option(
            "--read-only", help="run one SELECT over the results' views on a locked connection that can read only "
                                "the --results (no other file, extension, setting or table function but range "
                                "and unnest), with the web console's limits unless given (--timeout "
                                f"{connection.READ_ONLY_TIMEOUT:g}, --memory-limit "
                                f"{connection.READ_ONLY_MEMORY_GIB:g}): for SQL you did not write")] = False,
        timeout: TimeoutOpt = None, memory_limit: MemoryOpt = None) -> None:
    """Ad hoc DuckDB SQL over sweep results: 'games' is a view over every part of every --results.

    The SQL runs with DuckDB's full power, as you: it can read and write any file you can (COPY, ATTACH,
    read_text ...), install and load extensions and change settings. Run only SQL you trust; --read-only
    runs one SELECT statement over the results' views on the locked connection the canned queries use.
    Either way a statement stops at --timeout or Ctrl-C.
    """
    if fmt not in FORMATS:
        fail(f"--format {fmt!r} is not available; expected one of {', '.join(FORMATS)}")
    if not statement.strip():
        fail("sql: the statement is empty; give one SQL statement over the view 'games', "
             "e.g. \"SELECT board, count(*) FROM games GROUP BY 1\"")
    if not results:
        fail("give --results DIR (a sweep's results, a Parquet file or a glob)")
    if read_only:          # SQL one did not write gets the web console's limits (docs/queries-security.md)
        timeout = connection.READ_ONLY_TIMEOUT if timeout is None else timeout
        memory_limit = connection.READ_ONLY_MEMORY_GIB if memory_limit is None else memory_limit
    with _limits(timeout, memory_limit):
        try:
            params = _params(param) or None
            con = connection.connect(results, where, locked=read_only)
            try:
                if read_only:
                    sqlfiles.check_select(con, statement)
                columns, rows = connection.execute(con, statement, params, where="sql", results=results)
            finally:
                con.close()
            for line in sources.sweep_notes(results):
                warn(line)
        except (errors.QueryError, errors.ResultsError) as e:
            fail(str(e))
        except KeyboardInterrupt as e:    # Ctrl-C: in the statement (connection.Interrupted says so) or before it
            fail(str(e) or "sql: interrupted (Ctrl-C)", code=130)
    typer.echo(render("sql", columns, rows, fmt))


COMMANDS = {"query": query, "sql": sql}
