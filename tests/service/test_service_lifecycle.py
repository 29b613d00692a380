"""The job life cycle (service/lifecycle.py) and the runner that carries it out (service/runner.py), from cheap
fixtures: a job kind of this module whose steps are small child processes (a step exits with the code its arguments
say, after printing them), so the queue's states, the step order, errors, cancel and recovery are checked without
playing a game. The real steps (service/steps.py) are played end to end in test_service_jobs.py and the kinds'
tests."""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import pytest

from service import kinds, lifecycle
from service.catalog import Catalog
from service.kinds import Kind, Options, Step
from service.lifecycle import (CANCELLED, DONE, FAILED, QUEUED, RUNNING, TRANSITIONS, Decision, Illegal, after_step,
                               move)
from service.runner import Runner, layout, start_time

pytestmark = pytest.mark.service

# A step's child: prints "step NAME ARGS", then "error: ..." when it fails; "sleep" waits (in a grandchild too, so a
# cancel must end the whole process group); "pid FILE" writes the grandchild's pid there first.
CHILD = r"""
import os, subprocess, sys, time
name, args = sys.argv[1], sys.argv[2:]
print("step", name, *args, flush=True)
if name == "sleep":
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    open(args[0], "w").write(str(grandchild.pid))
    time.sleep(120)
code = int(args[0]) if args and args[0].lstrip("-").isdigit() else 0
if code:
    print(f"error: the {name} step says no ({code})", file=sys.stderr, flush=True)
sys.exit(code)
"""


def command(step: Step) -> list[str]:
    return [sys.executable, "-c", CHILD, step.name, *step.args]


def fixture_steps(row: dict, paths: dict, opts: Options) -> list[Step]:
    """Steps from the job's params: [[name, exit code], ...]; the last may fail when the params say so."""
    p = row["params"]
    steps = [Step(name, (str(code),)) for name, code in p["steps"]]
    if p.get("may_fail"):
        steps[-1] = Step(steps[-1].name, steps[-1].args, failure="the report could not be built")
    if p.get("sleep"):
        steps.insert(0, Step("sleep", (str(paths["own"] / "grandchild.pid"),)))
    (paths["own"] / "options.json").write_text(json.dumps({"resume": opts.resume}))
    return steps


def prepare(row: dict, paths: dict) -> None:
    if row["params"].get("refuse"):
        raise ValueError("its inputs cannot be written")


@pytest.fixture
def fixture_kind(monkeypatch):
    kind = Kind(name="fixture", title="a fixture", about="steps that exit as told", fields=(),
                check=lambda inputs, ctx: None, steps=fixture_steps, prepare=prepare,
                finish=lambda row, paths: {"verdict": "all steps ended"}, results=False)
    monkeypatch.setitem(kinds.KINDS, "fixture", kind)
    return kind


@pytest.fixture
def queue(tmp_path, fixture_kind):
    root = tmp_path / "root"
    root.mkdir()
    catalog = Catalog(root / "service.sqlite")
    owner = catalog.user_by_token(catalog.add_user("ed", "edit"))
    runner = Runner(catalog, root, jobs=1, tick_s=0.05, command=command)

    def add(**params) -> str:
        return catalog.add_job(owner=owner, title="fixture", description="", spec_name="fixture", game="paws",
                               spec_text="", cells=0, games=0, kind="fixture", params=params)
    yield catalog, runner, add, root
    runner.stop()
    catalog.close()


def run_until(runner: Runner, catalog: Catalog, job: str, states: tuple[str, ...], timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while catalog.job(job)["state"] not in states:
        assert time.monotonic() < deadline, catalog.job(job)
        runner.step()
        time.sleep(0.02)
    return catalog.job(job)


# the machine ------------------------------------------------------------------------------------------------

def test_every_move_of_the_table_and_no_other():
    states = (QUEUED, RUNNING, DONE, FAILED, CANCELLED)
    events = {e for _, e in TRANSITIONS}
    assert events == {"start", "refuse", "next", "finish", "fail", "cancel", "requeue"}
    for state in states:
        for event in events:
            if (state, event) in TRANSITIONS:
                assert move(state, event) == TRANSITIONS[state, event]
            else:
                with pytest.raises(Illegal, match=f"a {state} job cannot {event}"):
                    move(state, event)
    for ended in (DONE, FAILED, CANCELLED):           # an ended job never moves again
        assert not any(s == ended for s, _ in TRANSITIONS)
    assert move(RUNNING, "requeue") == QUEUED and move(QUEUED, "cancel") == CANCELLED


def test_after_a_step_next_finish_or_fail():
    steps = [Step("sweep"), Step("report", failure="the report could not be built")]
    assert after_step(steps, 0, 0, "") == Decision("next", 1)
    assert after_step(steps, 1, 0, "") == Decision("finish")
    assert after_step(steps, 0, 2, "spec.toml: bad") == Decision("fail", error="spec.toml: bad")
    assert after_step(steps, 0, 143, "") == Decision("fail", error="the sweep step ended with exit code 143")
    assert after_step(steps, 1, 2, "no games") == Decision("finish", error="the report could not be built: no games")
    only = [Step("compare", label="comparison")]
    assert after_step(only, 0, 1, "") == Decision("fail", error="the comparison step ended with exit code 1")


# the runner, with cheap children ------------------------------------------------------------------------------

def test_the_steps_run_in_order_and_the_job_ends_done_with_its_kinds_answer(queue):
    catalog, runner, add, root = queue
    job = add(steps=[["one", 0], ["two", 0], ["three", 0]])
    row = run_until(runner, catalog, job, lifecycle.ENDED)
    assert row["state"] == DONE and row["exit_code"] == 0 and row["error"] is None, row
    assert row["verdict"] == "all steps ended" and row["pid"] is None and row["started"] <= row["ended"]
    log = layout(root, job)["log"].read_text()
    assert [line.split()[1] for line in log.splitlines() if line.startswith("step ")] == ["one", "two", "three"]
    assert log.count("\n$ ") == 3 and "$ two: python -c" in log
    assert [a["action"] for a in reversed(catalog.audit_log()) if a["job"] == job] == ["submit", "start"]


def test_a_failing_step_fails_the_job_with_its_one_line_and_the_rest_never_runs(queue):
    catalog, runner, add, root = queue
    job = add(steps=[["one", 0], ["two", 2], ["three", 0]])
    row = run_until(runner, catalog, job, lifecycle.ENDED)
    assert row["state"] == FAILED and row["exit_code"] == 2, row
    assert row["error"] == "the two step says no (2)" and not row["verdict"]
    assert "step three" not in layout(root, job)["log"].read_text()


def test_a_last_step_that_may_fail_leaves_the_job_done_with_the_reason(queue):
    catalog, runner, add, _ = queue
    job = add(steps=[["sweep", 0], ["report", 2]], may_fail=True)
    row = run_until(runner, catalog, job, lifecycle.ENDED)
    assert row["state"] == DONE and row["exit_code"] == 0, row
    assert row["error"] == "the report could not be built: the report step says no (2)"
    assert not row["verdict"]                           # the kind's answer is read only after a whole run


def test_a_job_that_cannot_start_is_refused_and_the_queue_goes_on(queue):
    catalog, runner, add, _ = queue
    bad = add(steps=[["one", 0]], refuse=True)
    good = add(steps=[["one", 0]])
    assert run_until(runner, catalog, bad, lifecycle.ENDED)["error"] == \
        "the job could not start: its inputs cannot be written"
    assert catalog.job(bad)["state"] == FAILED and catalog.job(bad)["exit_code"] is None
    assert run_until(runner, catalog, good, lifecycle.ENDED)["state"] == DONE


def test_one_job_at_a_time_and_cancel_ends_the_childs_whole_group(queue):
    catalog, runner, add, root = queue
    first = add(steps=[["after", 0]], sleep=True)
    second = add(steps=[["one", 0]])
    pid_file = layout(root, first)["own"] / "grandchild.pid"
    deadline = time.monotonic() + 30
    while not pid_file.is_file() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the sleeping step did not start"
        runner.step()
        time.sleep(0.02)
    assert catalog.job(first)["state"] == RUNNING and catalog.job(second)["state"] == QUEUED
    child, grandchild = catalog.job(first)["pid"], int(pid_file.read_text())
    born = start_time(grandchild)
    assert runner.cancel(first, "ed") and not runner.cancel(first, "ed")
    assert catalog.job(first)["state"] == CANCELLED
    row = run_until(runner, catalog, second, lifecycle.ENDED)
    assert row["state"] == DONE
    assert catalog.job(first)["state"] == CANCELLED and catalog.job(first)["exit_code"] == -signal.SIGTERM
    assert start_time(child) is None and start_time(grandchild) != born       # the group went with it
    assert "step after" not in layout(root, first)["log"].read_text()
    assert "cancel" in [a["action"] for a in catalog.audit_log() if a["job"] == first]


def test_a_queued_job_is_cancelled_without_a_child(queue):
    catalog, runner, add, _ = queue
    job = add(steps=[["one", 0]])
    assert runner.cancel(job, "ed")
    runner.step()
    row = catalog.job(job)
    assert row["state"] == CANCELLED and row["pid"] is None and row["started"] is None


def test_a_job_running_when_the_service_stopped_is_requeued_its_old_child_ended_and_resumed(queue, tmp_path):
    catalog, runner, add, root = queue
    job = add(steps=[["one", 0]])
    # the child of an earlier run of the service, still alive in its own session
    import subprocess
    old = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
    try:
        catalog.set_job(job, state=RUNNING, started=1.0, pid=old.pid, pid_start=start_time(old.pid))
        runner.recover()
        assert old.wait(timeout=30) == -signal.SIGTERM
        row = catalog.job(job)
        assert row["state"] == QUEUED and row["resume"] == 1 and row["pid"] is None
        row = run_until(runner, catalog, job, lifecycle.ENDED)
        assert row["state"] == DONE and row["started"] == 1.0
        assert json.loads((layout(root, job)["own"] / "options.json").read_text()) == {"resume": True}
        actions = [a["action"] for a in reversed(catalog.audit_log()) if a["job"] == job]
        assert actions == ["submit", "requeue", "resume"]
    finally:
        if old.poll() is None:
            os.killpg(old.pid, signal.SIGKILL)
            old.wait()


def test_the_runner_thread_plays_the_queue_by_itself(queue):
    catalog, runner, add, _ = queue
    jobs = [add(steps=[["one", 0], ["two", 0]]) for _ in range(3)]
    runner.start()
    deadline = time.monotonic() + 60
    while any(catalog.job(j)["state"] != DONE for j in jobs):
        assert time.monotonic() < deadline, [catalog.job(j)["state"] for j in jobs]
        time.sleep(0.05)
    starts = [a["job"] for a in reversed(catalog.audit_log()) if a["action"] == "start"]
    assert starts == jobs                                # oldest first, one at a time
    ends = [catalog.job(j)["ended"] for j in jobs]
    assert ends == sorted(ends)


def test_every_kinds_steps_are_steps_of_service_steps(tmp_path):
    """Each registered kind lists steps that service/steps.py runs, each started as python -m service.steps."""
    from service import steps as steps_module
    from service.jobkinds import KINDS
    root = tmp_path
    row = {"id": "0123456789ab", "results": "", "spec_text": "", "params": {
        "run": "0123456789ab", "shortest": 5, "longest": 15, "behind_after": 3, "game": "paws", "bots": "a,b",
        "games": 10, "seed": 1, "players": None, "rules": None, "set": [], "setup": []}}
    from service.runner import job_layout
    paths = job_layout(root, row)
    paths["own"].mkdir(parents=True)
    seen = set()
    for name, kind in KINDS.items():
        for step in kind.steps(row, paths, Options(workers=2, resume=True)):
            assert step.name in steps_module.STEPS, (name, step)
            assert step.argv()[:3] == ["-m", "service.steps", step.name]
            seen.add(step.name)
    assert seen == set(steps_module.STEPS) - {"replay"}          # the replay is a run page's, not a job's
