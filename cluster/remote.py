"""A sweep whose results folder is on object storage (``--out s3://bucket/prefix``): the driver's lock, and
checking the folder against the spec (``--resume``, ``playtest status --verify``).

**One driver at a time.** A local folder is locked with ``flock``; a bucket has no such thing, so the driver
creates the lock object ``PREFIX/.sweep.lock`` with a conditional PUT (``If-None-Match: *``): S3 (and
S3-compatible servers that implement conditional writes) creates it for exactly one of two drivers racing
for it; the other gets one line and exit 2. The owner rewrites the lock every ``HEARTBEAT_S`` seconds with
``If-Match`` its own ETag, so it notices at once if someone else took the lock over, and deletes it when it
ends. A killed driver cannot delete its lock: a lock whose last heartbeat is older than ``STALE_S``
seconds (by the storage server's clock, so drivers' clocks never matter) is stale, and the next driver
takes it over, again with a conditional write (``If-Match`` the stale lock's ETag), so of two drivers
taking over the same stale lock only one wins. Every manifest save first checks that the lock is still ours.

Only ``s3://`` has these conditional writes here; a sweep into another remote scheme is refused in one
line (its results can still be read by ``playtest status`` and the queries).

**Checking the folder.** The same rules as a local folder (``cluster.verify``): every expected part object
is read and checked on its own evidence, objects that do not belong are moved (copied, then deleted) to
``PREFIX/.quarantine/<UTC time>/``. A part is always written whole to its final key (``infra.storage``), so
there are no temporary objects to clean up.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
import urllib.parse
import uuid
from email.utils import parsedate_to_datetime
from typing import Any, Callable

from cluster.manifest import DONE, NAME, ManifestError, load_manifest, new_manifest
from cluster.part import part_path
from cluster.spec import SweepSpec
from cluster.verify import (LOCK, MAX_PART_BYTES, QUARANTINE, FileCheck, Report, VerifyError, check_data,
                            expected_files, outdated_error, reconcile, tally)
from infra.storage import Location, StorageError, one_line

HEARTBEAT_S = 10.0          # the owner rewrites its lock this often
STALE_S = 60.0              # a lock not rewritten for this long belongs to a driver that is gone


class LockHeld(RuntimeError):
    """Another driver holds the lock; the message says who and since when."""


def _client(loc: Location):
    """A boto3 S3 client for ``loc``'s endpoint (the URI's endpoint_override/scheme/region, else the AWS
    environment)."""
    try:
        import boto3
        from botocore.config import Config
    except ImportError:
        raise StorageError("a sweep into s3:// needs boto3 for its lock: pip install 'playtest[s3]'") from None
    q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(loc.uri).query))
    endpoint = f"{q.get('scheme', 'https')}://{q['endpoint_override']}" if q.get("endpoint_override") else None
    region = q.get("region") or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    return boto3.client("s3", endpoint_url=endpoint, region_name=region,
                        config=Config(connect_timeout=5, read_timeout=30, retries={"max_attempts": 3}))


def _code(e: Exception) -> str:
    return str(getattr(e, "response", {}).get("Error", {}).get("Code", ""))


def _status(e: Exception) -> int:
    return int(getattr(e, "response", {}).get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)


def _age(head: dict) -> float:
    """Seconds since the object of ``head`` (a HEAD answer) was written, by the storage server's clock."""
    return (parsedate_to_datetime(head["ResponseMetadata"]["HTTPHeaders"]["date"]) - head["LastModified"]
            ).total_seconds()


def _holder(client, bucket: str, key: str, **cond) -> dict:
    """The lock's body: who holds it (host, pid, since)."""
    return json.loads(client.get_object(Bucket=bucket, Key=key, **cond)["Body"].read(4096))


class ObjectLock:
    """The driver's lock object on S3 (see the module doc)."""

    @staticmethod
    def supported(loc: Location) -> None:
        """StorageError unless a driver can lock ``loc`` (an s3:// folder, boto3 installed)."""
        if loc.scheme != "s3":
            raise StorageError(f"{loc.name()}: sweeps write only to s3:// or a local folder (the driver's lock needs "
                               f"S3's conditional writes); {loc.scheme}:// results can still be read")
        _client(loc)

    def __init__(self, loc: Location, what: str = "sweep"):
        self.supported(loc)
        self.loc, self.what = loc, what
        bucket, _, prefix = loc.root.partition("/")
        self.bucket, self.key = bucket, f"{prefix}/{LOCK}" if prefix else LOCK
        self.client = _client(loc)
        self.etag: str | None = None
        self.lost = ""
        self.took_over = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.body = json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "owner": uuid.uuid4().hex,
                                "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "what": what})

    def _put(self, **cond) -> str:
        r = self.client.put_object(Bucket=self.bucket, Key=self.key, Body=self.body.encode(), **cond)
        return r["ETag"]

    def acquire(self) -> None:
        from botocore.exceptions import BotoCoreError, ClientError
        try:
            try:
                self.etag = self._put(IfNoneMatch="*")
            except ClientError as e:
                if _status(e) not in (409, 412) and _code(e) not in ("PreconditionFailed", "ConditionalRequestConflict"):
                    raise
                self._take_over_or_refuse()
        except ClientError as e:
            raise StorageError(f"{self.loc.name(LOCK)}: cannot create the driver's lock ({_code(e) or one_line(e)})"
                               ) from None
        except BotoCoreError as e:
            raise StorageError(f"{self.loc.name(LOCK)}: cannot create the driver's lock ({one_line(e)})") from None
        self._thread = threading.Thread(target=self._beat, name="sweep-lock-heartbeat", daemon=True)
        self._thread.start()

    def _take_over_or_refuse(self) -> None:
        from botocore.exceptions import ClientError
        try:
            head = self.client.head_object(Bucket=self.bucket, Key=self.key)
        except ClientError as e:
            if _status(e) == 404:            # released in between: try once more
                self.etag = self._put(IfNoneMatch="*")
                return
            raise
        age = _age(head)
        try:
            holder = _holder(self.client, self.bucket, self.key, IfMatch=head["ETag"])
            who = f"host {holder.get('host')}, pid {holder.get('pid')}, since {holder.get('since')}"
        except (ClientError, ValueError, AttributeError):
            who = "a driver"
        if age <= STALE_S:
            raise LockHeld(f"{self.loc.name()}: another driver is running a {self.what} here ({who}; its lock "
                           f"{self.loc.name(LOCK)} was renewed {age:.0f} s ago); let it finish or stop it (its "
                           f"Ctrl-C saves the manifest), then --resume. A lock not renewed for {STALE_S:.0f} s is "
                           "stale and taken over")
        try:
            self.etag = self._put(IfMatch=head["ETag"])
        except ClientError as e:
            if _status(e) in (409, 412):
                raise LockHeld(f"{self.loc.name()}: another driver took over the stale lock of {who} just now; "
                               "let it finish, then --resume") from None
            raise
        self.took_over = f"took over the stale lock of {who} (not renewed for {age:.0f} s)"

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_S) and self.renew():
            pass

    def renew(self) -> bool:
        """Rewrite the lock if it is still ours (``If-Match`` our ETag); False once it is lost."""
        from botocore.exceptions import BotoCoreError, ClientError
        try:
            self.etag = self._put(IfMatch=self.etag)
        except ClientError as e:
            if _status(e) in (404, 409, 412):
                self.lost = (f"{self.loc.name(LOCK)}: this driver's lock was taken over or removed by "
                             "someone else; stopped so that two drivers never write one manifest")
                return False
        except BotoCoreError:
            pass                      # the storage did not answer this time: the lock stays ours until stale
        return True

    def check(self) -> None:
        """Raise ManifestError if the lock is no longer ours (called before each manifest save)."""
        if self.lost:
            raise ManifestError(self.lost)

    def release(self) -> None:
        from botocore.exceptions import BotoCoreError, ClientError
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=HEARTBEAT_S + 35)
        if self.lost or self.etag is None:
            return
        with contextlib.suppress(ClientError, BotoCoreError):
            head = self.client.head_object(Bucket=self.bucket, Key=self.key)
            if head["ETag"] == self.etag:
                self.client.delete_object(Bucket=self.bucket, Key=self.key)


def driver_seen(loc: Location) -> str | None:
    """For ``playtest status`` of a running sweep: whether its driver still renews its lock, in words
    (ages by the storage server's clock); None when the lock cannot be read (no boto3, not s3://, no answer)."""
    if loc.scheme != "s3":
        return None
    try:
        from botocore.exceptions import BotoCoreError, ClientError
        client = _client(loc)
    except (StorageError, ImportError):
        return None
    bucket, _, prefix = loc.root.partition("/")
    key = f"{prefix}/{LOCK}" if prefix else LOCK
    try:
        head = client.head_object(Bucket=bucket, Key=key)
        age = _age(head)
        holder = _holder(client, bucket, key)
        who = f"host {holder.get('host')}, pid {holder.get('pid')}" if isinstance(holder, dict) else "a driver"
    except ClientError as e:
        if _status(e) == 404:
            return "no driver holds its lock: the driver was stopped or killed; --resume finishes it"
        return None
    except (BotoCoreError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if age > STALE_S:
        return (f"its driver ({who}) last renewed its lock {age:.0f} s ago, so it is gone; --resume finishes "
                "it")
    return f"its driver ({who}) renewed its lock {max(age, 0):.0f} s ago"


@contextlib.contextmanager
def object_lock(loc: Location, what: str = "sweep"):
    lock = ObjectLock(loc, what)
    lock.acquire()
    try:
        yield lock
    finally:
        lock.release()


# ---- checking the folder against the spec -------------------------------------------------------------------

def scan_remote(loc: Location, spec: SweepSpec, core: str | None = None) -> Report:
    """:func:`cluster.verify.scan` for a folder on object storage (nothing is changed)."""
    from concurrent.futures import ThreadPoolExecutor
    t0 = time.perf_counter()
    report = Report(out_dir=loc.name(), spec_digest=spec.digest, parts=spec.total_parts)
    listed = loc.files()
    wanted = expected_files(spec)
    names = {str(part_path("", t, cid, b)): (cid, b, t) for cid, b, t in wanted}
    for rel in sorted(listed):
        if rel in (NAME, LOCK) or rel.startswith(QUARANTINE + "/") or rel in names:
            continue
        if rel.endswith("/" + NAME):
            raise VerifyError(f"{loc.name(rel)} is another sweep's manifest inside this sweep's folder "
                              f"{loc.name()}; move that sweep out first (sweeps are never nested)")
        report.stray.append(rel)

    def check(item: tuple[str, tuple[str, int, str]]):
        rel, (cid, b, t) = item
        if rel not in listed:
            return FileCheck(rel, "missing")
        if listed[rel] > MAX_PART_BYTES:
            return FileCheck(rel, "corrupt", f"{listed[rel]:,} bytes, larger than any part")
        data = loc.read_bytes(rel, MAX_PART_BYTES)
        if data is None:
            return FileCheck(rel, "missing")
        return check_data(rel, data, spec, cid, b, t, core)

    report.files = len(wanted)
    with ThreadPoolExecutor(max_workers=8) as pool:
        checks = list(pool.map(check, names.items()))
    return tally(report, spec, list(names.values()), checks, t0)


def part_reader(loc: Location):
    """A part object's bytes by its path in the folder (for a replay of its games: cluster.verify.reconcile)."""
    def read(rel: str) -> bytes:
        data = loc.read_bytes(rel, MAX_PART_BYTES)
        if data is None:
            raise OSError(f"{loc.name(rel)} is gone")
        return data
    return read


def quarantine_remote(loc: Location, report: Report, extra: list[str] = ()) -> None:
    """:func:`cluster.verify.quarantine` on object storage: objects that do not belong are copied to
    ``PREFIX/.quarantine/<UTC time>/<their path>`` and then deleted (never only deleted)."""
    moving = [*extra, *report.stray, *(r for r, _ in report.corrupt), *(r for r, _ in report.misplaced)]
    if not moving:
        return
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    taken = {rel.split("/")[1] for rel in loc.files() if rel.startswith(QUARANTINE + "/") and rel.count("/") > 1}
    qdir, n = f"{QUARANTINE}/{stamp}", 1
    while qdir.split("/")[1] in taken:
        n += 1
        qdir = f"{QUARANTINE}/{stamp}-{n}"
    report.quarantine_dir = qdir
    for rel in moving:
        try:
            loc.move(rel, f"{qdir}/{rel}")
        except StorageError as e:
            raise VerifyError(str(e)) from None
        report.quarantined.append(rel)


def prepare_remote(spec: SweepSpec, loc: Location, resume: bool, code: str, core: str,
                   log: Callable[[str], None] | None, error: type[Exception]) -> tuple[dict[str, Any], Report | None]:
    """:func:`cluster.sweep.prepare_dir` for a folder on object storage (``error``: the SweepError class)."""
    broken: ManifestError | None = None
    try:
        manifest = load_manifest(loc.uri)
    except ManifestError as e:
        manifest, broken = None, e
    where = loc.name()
    if manifest is not None:
        if manifest["spec_digest"] != spec.digest:
            raise error(f"{where} holds a different sweep ({manifest['name']!r} from {manifest['spec_file']}, "
                        f"spec digest {manifest['spec_digest']}); {spec.source} has digest {spec.digest}. "
                        "Choose another --out")
        if not resume:
            done = sum(p["state"] == DONE for c in manifest["cells"] for p in c["parts"])
            raise error(f"{where} already holds this sweep ({manifest['state']}, {done} of "
                        f"{manifest['parts_total']} parts done); pass --resume to finish it, or choose another --out")
        if spec.engine == "core" and manifest["core_digest"] != core:
            raise error(f"{where}: the engine core changed since this sweep started (core digest "
                        f"{manifest['core_digest']}, now {core}); finish it with the same build or start a new --out")
    else:
        others = [r for r in loc.files() if r != LOCK]
        if not others:
            return new_manifest(spec, code, core), None
        if not resume:
            if broken is not None:
                raise error(f"{broken.detail}; pass --resume to rebuild it from the spec and the parts on storage")
            raise error(f"{where}: not empty and holds no sweep manifest; choose a new or empty --out "
                        "(or pass --resume to rebuild the manifest of this spec's sweep from its parts)")
    if log:
        log(f"verifying {spec.total_parts * len(spec.tables):,} part objects in {where} against the spec ...")
    try:
        report = scan_remote(loc, spec, core)
    except (VerifyError, StorageError) as e:
        raise error(str(e)) from None
    if manifest is None:
        if report.other_digests:
            digest, rel = next(iter(report.other_digests.items()))
            raise error(f"{where} holds parts of another sweep (spec digest {digest}, e.g. {rel}) and no readable "
                        f"manifest; {spec.source} has digest {spec.digest}. Choose another --out")
        if not report.own_files:
            raise error(f"{where}: not empty and holds neither a sweep manifest nor parts of this spec's sweep; "
                        "choose a new or empty --out")
        report.manifest_rebuilt = f"unreadable ({broken.detail})" if broken is not None else "missing"
    if (old_layout := outdated_error(where, report)) is not None:
        raise error(old_layout)
    extra = [NAME] if broken is not None and loc.exists(NAME) else []
    fixed = reconcile(manifest, spec, report, code, core, read=part_reader(loc))
    try:
        quarantine_remote(loc, report, extra)
    except VerifyError as e:
        raise error(str(e)) from None
    return fixed, report
