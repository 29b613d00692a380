"""A job's life cycle, one state machine: queued -> running (step k of its kind's steps) -> done, failed or
cancelled. :data:`TRANSITIONS` is every move there is, by event; :func:`move` refuses any other (a done job never
runs again, a cancelled one is never marked done by a child that ended late). :func:`after_step` is what the runner
asks when a step's child ends: start the next step, finish, or fail. The runner (service/runner.py) holds the
children and the catalog; it decides nothing of this itself.

The states are the catalog's ``jobs.state`` column; the step under way lives with the runner's child (a job that was
running when the service stopped is queued again and starts its steps from the first, its sweep with ``--resume``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
ACTIVE = (QUEUED, RUNNING)
ENDED = (DONE, FAILED, CANCELLED)

# (state, event) -> the state it moves to
TRANSITIONS: dict[tuple[str, str], str] = {
    (QUEUED, "start"): RUNNING,        # a free slot: its inputs written, its first step started
    (QUEUED, "refuse"): FAILED,        # it could not start (an unknown kind, inputs that cannot be written)
    (QUEUED, "cancel"): CANCELLED,
    (RUNNING, "next"): RUNNING,        # a step ended well: the next one starts
    (RUNNING, "finish"): DONE,         # the last step ended well (or failed where it may: the reason is kept)
    (RUNNING, "fail"): FAILED,         # a step failed: its one-line error is the job's
    (RUNNING, "cancel"): CANCELLED,    # its child's process group is ended
    (RUNNING, "requeue"): QUEUED,      # the service stopped under it: it resumes at the next start
}


class Illegal(ValueError):
    """An event the job's state does not take."""


def move(state: str, event: str) -> str:
    """The state ``event`` moves a job in ``state`` to; Illegal when there is no such move."""
    try:
        return TRANSITIONS[state, event]
    except KeyError:
        raise Illegal(f"a {state} job cannot {event}") from None


def takes(state: str, event: str) -> bool:
    """Whether a job in ``state`` takes ``event``."""
    return (state, event) in TRANSITIONS


@dataclass(frozen=True)
class Decision:
    """What to do when a step ended: ``event`` next (``index``: the step to start), finish (``error``: the reason a
    step that may fail failed, else None) or fail (``error``: the job's one line)."""

    event: str
    index: int | None = None
    error: str | None = None


def after_step(steps: Sequence, index: int, code: int, said: str) -> Decision:
    """The decision after step ``index`` of ``steps`` (service.kinds.Step) ended with exit ``code``; ``said``: its
    last line that says something (its one-line error)."""
    step = steps[index]
    last = index + 1 == len(steps)
    if code == 0:
        return Decision("finish") if last else Decision("next", index + 1)
    if last and step.failure:
        return Decision("finish", error=f"{step.failure}: {said}")
    return Decision("fail", error=said or f"the {step.title} step ended with exit code {code}")
