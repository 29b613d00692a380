"""``python -m service.regressjob SUITE --baseline BASELINE --report OWN --work RESULTS [--workers N] [--address A]``:
a regress job's step. It calls the function ``playtest regress`` calls (``regress.regression.regress``), so the
report (report.md, report.html, result.json) is the command's own; unlike the command it exits 0 on a regression
(an answer, not a failure: the verdict is in result.json), 2 with one ``error:`` line on a bad input."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cluster.sweep import SweepError
from regress.regression import regress


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m service.regressjob", add_help=False)
    p.add_argument("suite")
    p.add_argument("--baseline", required=True)
    p.add_argument("--report", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--workers", type=int)
    p.add_argument("--address")
    try:
        a = p.parse_args(argv)
    except SystemExit:
        print("error: usage: python -m service.regressjob SUITE --baseline B --report DIR --work DIR", file=sys.stderr)
        return 2
    try:
        out = regress(Path(a.suite), Path(a.baseline), Path(a.report), work=Path(a.work), workers=a.workers,
                      address=a.address, progress=False)
    except (ValueError, OSError, SweepError) as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    cmp = out.comparison
    if cmp is None:
        print("error: no comparison was made", file=sys.stderr)
        return 2
    print(f"{cmp.verdict.upper()}: {len(cmp.flagged)} flagged metric(s) of {len(cmp.tests)}, {len(cmp.changed)} "
          f"changed cell(s) of {len(cmp.cells)}" + (f" ({'; '.join(cmp.reasons)})" if cmp.reasons else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
