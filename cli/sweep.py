"""``playtest sweep`` and ``playtest status``: parameter sweeps on Ray and where a sweep stands."""

from __future__ import annotations

import contextlib
import fcntl
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from cli.common import err, fail, warn
from cli.play_sweep import play_spec
from cluster import play
from cluster.manifest import BEYOND, DONE, ManifestError, counts, load_manifest, save_manifest
from cluster.part import part_path
from cluster.play import FAILED_EXIT, stop_goal  # noqa: F401 - what the sweep commands exit with and say
from cluster.spec import SpecError, SweepSpec, parse_spec
from cluster.sweep import LOCK, SweepError, workers_error
from cluster.tune import stopper_for, tune_report
from cluster.verify import VerifyError, quarantine, reconcile, scan, settle_stop
from infra import folder
from infra.stop_text import stop_line
from infra.storage import StorageError, is_uri, open_location
from queries.report import summary_lines as report_summary


_size = play.size_words


def sweep(spec: Annotated[Path, typer.Argument(help="sweep spec (TOML; see docs/sweeps.md and examples/)")],
          out: Annotated[str, typer.Option(help="results directory: hive-partitioned Parquet + manifest.json; "
                                                "a local folder or s3://BUCKET/PREFIX (docs/sweeps.md)")],
          workers: Annotated[Optional[int], typer.Option(help="tasks run at once (default: all cores of this "
                                                              "machine, or of the cluster with --address)")] = None,
          address: Annotated[Optional[str], typer.Option(help="HOST:PORT of a running Ray cluster to join "
                                                              "(default: start Ray on this machine)")] = None,
          resume: Annotated[bool, typer.Option(help="finish a sweep already in --out: check every file against the "
                                                    "spec, move what does not belong to --out/.quarantine, play "
                                                    "every part missing or bad (rebuilds a lost or broken "
                                                    "manifest)")] = False,
          progress: Annotated[bool, typer.Option(help="show a live progress bar")] = True,
          ray: Annotated[bool, typer.Option("--ray", help="start the embedded Ray at once (default: the driver "
                                                          "plays at once and starts Ray only for a sweep long "
                                                          "enough to pay for it; docs/sweeps.md)")] = False,
          skill: Annotated[Optional[str], typer.Option(
              help="play the spec at each of these bot levels (specs separated by commas, weakest first), each "
                   "in every seat, into --out/skill-1, skill-2, ... (docs/skill.md)")] = None,
          skill_seconds: Annotated[float, typer.Option(
              help="with --skill: the most seconds of play a level may take; a slow bot plays fewer games a cell "
                   "(at least 100)")] = 600.0,
          skill_games: Annotated[Optional[str], typer.Option(
              help="with --skill: each level's games per cell, separated by commas (instead of the budget)")]
          = None,
          skill_ladder_games: Annotated[Optional[int], typer.Option(
              help="with --skill: games per line-up of the levels' round robin (every pair in both seat orders) "
                   "that rates them on one Elo scale, into --out/ladder (default 200; 0: none)",
              show_default=False)] = None) -> None:
    """Play every cell of a sweep spec on Ray; every game becomes a Parquet row under --out."""
    if (bad := workers_error(workers, address)) is not None:
        fail(bad)
    if skill is not None or skill_games is not None or skill_ladder_games is not None:
        if skill is None:
            fail(f"--skill-{'games' if skill_games is not None else 'ladder-games'}: only with --skill")
        from cli.skill import skill_sweep
        return skill_sweep(spec, out, skill, skill_seconds, skill_games, skill_ladder_games, workers=workers,
                           address=address, resume=resume, progress=progress, ray=ray)
    try:
        s, out = play.open_sweep(spec, out)     # a local folder or object storage, checked before any game
    except (SpecError, SweepError) as e:
        fail(str(e))
    again = f"playtest sweep {spec} --out {out}" + (f" --address {address}" if address else "")
    play_spec(s, out, workers=workers, address=address, resume=resume, progress=progress, again=again,
              driver_plays=not ray)
    for line in report_summary(str(out)):      # games, first player's share per cell, end reasons; the page
        err.print(line, highlight=False, markup=False, soft_wrap=True)


def status(out: Annotated[str, typer.Argument(help="a sweep's results directory (a local folder or "
                                                   "s3://BUCKET/PREFIX)")],
           cells: Annotated[bool, typer.Option(help="one line per cell")] = True,
           verify: Annotated[bool, typer.Option(help="check every part file against the sweep's spec (stored in "
                                                     "the manifest), move strays and bad files to "
                                                     "DIR/.quarantine and correct the manifest; exit 0 if the "
                                                     "folder is whole, 1 if it found problems (then --resume "
                                                     "plays what is missing)")] = False,
           full: Annotated[bool, typer.Option(help="with --verify: play every game of each part that no signed "
                                                   "manifest vouches for again (as long as the sweep took) and "
                                                   "sign the manifest; without it a sample of each is played "
                                                   "again and such a folder is not signed (docs/results-folders.md)")]
           = False) -> None:
    """Report a sweep's state from its manifest (a cache); --verify checks the files themselves.

    Exit code: 0 (with --verify: the folder is whole), 1 (--verify found problems), 2 (bad input)."""
    if full and not verify:
        fail("--full: only with --verify (playtest status DIR --verify --full)")
    remote = is_uri(out)
    try:
        loc = open_location(out) if remote else None
        m = load_manifest(out if remote else Path(out))
    except (ManifestError, StorageError) as e:
        fail(str(e))
    if not remote:
        out = Path(out)
    if m is None:
        fail(f"{loc.name() if remote else out}: no sweep here (no manifest.json)")
    if not verify and (problem := folder.manifest_problem(m)):     # e.g. a part's entry removed: not the sweep's size
        warn(f"{loc.name('manifest.json') if remote else out / 'manifest.json'}: {problem}; its counts below are not "
             f"the sweep's: playtest status --verify {out} checks the files and corrects it")
    if verify:
        m, report = _verify_remote(loc, m, full) if remote else _verify(out, m, full)
    c = counts(m)
    try:
        listed = loc.files() if remote else None
    except StorageError as e:
        fail(str(e))

    def there(t: str, cell_id: str, batch: int) -> bool:
        if remote:
            return str(part_path("", t, cell_id, batch)) in listed
        return part_path(out, t, cell_id, batch).exists()
    missing = [f"{cell['id']}/{p['batch']}" for cell in m["cells"] for p in cell["parts"] if p["state"] == DONE
               and not all(there(t, cell["id"], p["batch"]) for t in m["tables"])]
    if remote:
        out = loc.uri
    con = Console()
    pct = 100.0 * c["games_done"] / c["games"] if c["games"] else 0.0
    seen = None
    if remote and m["state"] == "running":
        from cluster.remote import driver_seen
        seen = driver_seen(loc)
    state = m["state"] + (f" ({seen})" if seen else " (or its driver was killed: --resume finishes it)"
                          if m["state"] == "running" else "")
    con.print(f"sweep {escape(repr(m['name']))} ({escape(m['spec_file'])}): [bold]{escape(state)}[/]\n"
              + escape(f"  {c['games_done']:,} of {c['games']:,} games ({pct:.1f}%), {c['parts_done']} of "
                       f"{c['parts']} parts, {_size(c['bytes'])}\n"
                       f"  {len(m['cells'])} cells x {m['games_per_cell']:,} games, batch {m['batch_size']:,}, seed "
                       f"{m['seed']}, engine {m['engine']}, tables {', '.join(m['tables'])}\n"
                       f"  spec digest {m['spec_digest']}, code {m['code_version']} (core {m['core_digest']}), "
                       f"updated {m['updated']}"), highlight=False)
    if m.get("error"):
        con.print(f"  [red]error:[/] {escape(m['error'])}", highlight=False)
    if missing:
        con.print(f"  [red]{len(missing)} finished parts are missing on disk[/] (e.g. {escape(missing[0])}); "
                  "--resume plays them again", highlight=False)
    stopping = isinstance(m.get("stop"), dict)
    if stopping:
        reasons = m["stop"].get("cells") if isinstance(m["stop"].get("cells"), dict) else {}
        con.print(escape(f"  [stop]: cells {', '.join(f'{k} {v}' for k, v in reasons.items()) or '?'}; games per "
                         f"cell at most {m['games_per_cell']:,}"), highlight=False)
    if cells:
        t = Table("cell", "values", "parts done", "games done", *(("stop",) if stopping else ()))
        for cell in m["cells"]:
            done = [p for p in cell["parts"] if p["state"] == DONE]
            alive = [p for p in cell["parts"] if p["state"] != BEYOND]
            t.add_row(escape(cell["id"]),
                      escape(", ".join(f"{k}={v}" for k, v in cell["values"].items()) or "(base)"),
                      f"{len(done)}/{len(alive)}", f"{sum(p['rows'] for p in done):,}",
                      *((escape(str((cell.get("stop") or {}).get("reason") or "playing")),) if stopping else ()))
        con.print(t)
    if stopping:
        for cell in m["cells"]:
            con.print(escape(f"  {cell['id']}: {stop_line(cell.get('stop'))}"), highlight=False)
    if not verify:
        con.print(escape(f"(from the manifest, a cache; `playtest status {out} --verify` checks the files)"),
                  highlight=False)
    if m["state"] != "done":
        how = (f"playtest tune {tune_report(out).get('source', 'TUNE_SPEC')}" if not remote and tune_report(out) is not None
               else f"playtest sweep {m['spec_file']}")
        con.print(escape(f"resume with: {how} --out {out} --resume"), highlight=False)
    if verify and report.problems:
        raise typer.Exit(code=1)


def _stored_spec(out, m: dict, within) -> SweepSpec:
    """The manifest's own spec, resolved; ``within``: the folder every file it names must lie in (a manifest no
    signature vouches for names no file outside its folder; "" none at all), None for any."""
    rebuild = f"re-run with the spec: playtest sweep SPEC --out {out} --resume"
    try:
        spec = parse_spec(m["spec"], source=m["spec_file"], base_dir=Path(m["spec_file"]).parent, within=within)
    except SpecError as e:
        fail(f"{out}/manifest.json: its stored spec no longer resolves ({e}); {rebuild}")
    if spec.digest != m["spec_digest"]:
        fail(f"{out}/manifest.json: its stored spec resolves to digest {spec.digest}, not the recorded "
             f"{m['spec_digest']} (card data or code changed since); {rebuild}")
    return spec


def _verify_remote(loc, m: dict, full: bool):
    """``status --verify`` for a sweep on object storage (cluster.remote): under the driver's lock object."""
    from cluster.remote import LockHeld, object_lock, part_reader, quarantine_remote, scan_remote
    spec = _stored_spec(loc.name(), m, within=None if getattr(m, "signature", None) == folder.SIGNED else "")
    try:
        with object_lock(loc, "verification"):
            report = scan_remote(loc, spec, m["core_digest"] if spec.engine == "core" else None)
            fixed = reconcile(m, spec, report, m["code_version"], m["core_digest"], full=full, read=part_reader(loc))
            quarantine_remote(loc, report)
            if _to_save(m, report):
                save_manifest(loc.uri, fixed, sign=report.vouched)
    except LockHeld as e:
        fail(f"{loc.name()}: a driver is running this sweep now; verify after it ends ({e})")
    except (VerifyError, ManifestError, StorageError) as e:
        fail(str(e))
    _print_verified(report, m, loc.uri)
    return fixed, report


def _print_verified(report, m: dict, out) -> None:
    """What ``status --verify`` found and did, and the command that plays what is missing."""
    con = Console()
    for line in report.lines():
        con.print(line, highlight=False, markup=False, soft_wrap=True)
    if (said := getattr(m, "signature", folder.UNSIGNED)) != folder.SIGNED:
        said = {folder.UNSIGNED: "carried no signature", folder.OTHER_KEY: "was signed by another machine's key",
                folder.BROKEN: "had a signature that did not match its content"}.get(said, said)
        if report.vouched:
            con.print(f"manifest.json {said}; now signed with this machine's key: every part it lists was played "
                      "again here, game for game, and agreed", highlight=False, markup=False, soft_wrap=True)
        else:
            con.print(f"manifest.json {said}; left unsigned: a sample is not proof (playtest status {out} --verify "
                      "--full plays every game again and signs it)", highlight=False, markup=False, soft_wrap=True)
    if report.whole and not report.problems:
        con.print("the folder is whole: every part file is there and right, nothing else is" if report.vouched else
                  "every part file is there and passed its checks, nothing else is; the parts' rows are vouched for "
                  "by a sample only", highlight=False, markup=False, soft_wrap=True)
    elif report.bad_parts():
        con.print(escape(f"{report.bad_parts()} parts to play: playtest sweep {m['spec_file']} --out {out} --resume"),
                  highlight=False)
    if report.problems:
        con.print(("manifest.json corrected; " if report.manifest_notes else "")
                  + "exit code 1: problems were found", highlight=False)


@contextlib.contextmanager
def _folder_lock(out: Path, act: str):
    """Hold the sweep folder's lock (the one its driver holds) while ``act``-ing on it; one line and exit 2
    when a driver runs the sweep now or the folder cannot be locked."""
    try:
        f = open(out / LOCK, "a")
    except OSError as e:
        fail(f"{out}: cannot lock the folder ({e.strerror or e})")
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fail(f"{out}: a driver is running this sweep now; {act} after it ends")
        except OSError as e:
            fail(f"{out}: cannot lock the folder ({e.strerror or e})")
        yield


def _to_save(m: dict, report) -> bool:
    """Whether ``status --verify`` writes the manifest: it corrected something, or it may now sign one that came
    unsigned (every part vouched for: a signed manifest's SHA-256 or every game played again here)."""
    return report.problems or (getattr(m, "signature", None) != folder.SIGNED and report.vouched)


def _verify(out: Path, m: dict, full: bool):
    """``status --verify``: check every file against the manifest's own spec, quarantine, correct the manifest.

    Prints what it found and did; returns (the corrected manifest, the report)."""
    spec = _stored_spec(out, m, within=None if getattr(m, "signature", None) == folder.SIGNED else out)
    with _folder_lock(out, "verify"):
        try:
            report = scan(out, spec, m["core_digest"] if spec.engine == "core" else None)
            fixed = reconcile(m, spec, report, m["code_version"], m["core_digest"], full=full)
            race = stopper_for(out, spec) if spec.stop is None else None    # a tune's folder: its race
            if spec.stop is not None or race is not None:
                settle_stop(out, spec, fixed, report, race)
            quarantine(out, report)
            if _to_save(m, report):     # signed only when every part it lists is vouched for (Report.vouched)
                save_manifest(out, fixed, sign=report.vouched)
        except (VerifyError, ManifestError) as e:
            fail(str(e))
    _print_verified(report, m, out)
    return fixed, report


def upgrade(out: Annotated[str, typer.Argument(help="a sweep's results directory (a local folder) written "
                                                  "before the per-game query columns or their latest version")]) -> None:
    """Give an older sweep's parts the per-game columns the canned queries read (lead story, bot line-up keys,
    the game's own, e.g. knockout sums: docs/sweeps.md, "Query speed"), so those queries answer it fast (parts
    of an older version of the columns get only the missing ones), and the columns of engine options added
    since (dice_stream) at their default, so the sweep can be resumed. The games are unchanged; parts are
    rewritten one at a time, atomically, with the manifest updated after each.

    Exit code: 0 (done), 2 (not a sweep's folder, a sweep running in it, a part that fails its checksum)."""
    from cluster.upgrade import UpgradeError, upgrade as upgrade_dir
    if is_uri(out):
        fail(f"{out}: upgrade works on a local results folder; copy the sweep down first")
    out = Path(out)
    if not out.is_dir():
        fail(f"{out}: no such results directory")
    with _folder_lock(out, "upgrade it"):
        try:
            done = upgrade_dir(out)
        except UpgradeError as e:
            fail(str(e))
    Console().print(escape(f"{out}: {done['rewritten']} of {done['parts']} parts given the per-game query "
                           f"columns ({done['skipped']} had them already)"), highlight=False,
                  soft_wrap=True)          # one line however long the folder's name, like every message


COMMANDS = {"sweep": sweep, "status": status, "upgrade": upgrade}


def play_measure(out: Path, stem: str, raw: dict, files: dict[str, str], *, what: str, header: str, resume: bool,
                 workers: int | None, address: str | None, quiet: bool, cost: str):
    """A measure (restrict, card-worth) as an ordinary sweep: its spec and card ``files`` written into ``out``
    (cluster.measure_sweep.prepare: a folder holding another sweep, or this one started with other settings,
    exits 2 in one line before anything is written), the cost said (``cost``, then the sweep's own line), the
    sweep played (cli.play_sweep.play_spec: resume, interruption and its hint as for ``playtest sweep``). Returns the
    spec; the caller answers from the folder."""
    import shlex

    from cluster.measure_sweep import prepare
    from cluster.spec import SpecError
    from cluster.sweep import SweepError, workers_error
    if (bad := workers_error(workers, address)) is not None:
        fail(bad)
    try:
        spec = prepare(out, stem, raw, files, resume, what, header)
    except (SweepError, SpecError) as e:
        fail(str(e))
    err.print(f"{cost}: {len(spec.cells):,} cells x {spec.games_per_cell:,} games = {spec.total_games:,} games to "
              f"play -> {out}", highlight=False, markup=False, soft_wrap=True)
    again = shlex.join(["playtest", *[a for a in sys.argv[1:] if a != "--resume"]])
    play_spec(spec, out, workers=workers, address=address, resume=resume, progress=not quiet, again=again)
    return spec
