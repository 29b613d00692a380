"""Results on object storage: ``s3://bucket/prefix`` (or any file system pyarrow opens from a URI) as a
results folder.

A results location is either a local path (everything else in playtest, unchanged) or a URI whose scheme
pyarrow knows (``s3://``, ``gs://``, ``hdfs://``, ...), opened with ``pyarrow.fs.FileSystem.from_uri``.
:func:`open_location` checks it before any work and says in one line what is wrong (:class:`StorageError`):
an unknown scheme, no bucket, an endpoint that does not answer, a bucket that does not exist, or a bucket or
prefix that could name another bucket once decoded or sent (``.`` or ``..`` segments, ``//``, backslashes,
control characters, ``%2e``/``%2f``/``%5c``, a ``#``): ``s3://a/../b/x`` would check bucket ``a`` and write
into bucket ``b``. :meth:`Location.path` likewise refuses an object name that is absolute or has such
segments, so no key read from a manifest or a listing leaves the folder.

S3 settings come from the URI's query parameters as pyarrow reads them (``endpoint_override``, ``scheme``,
``region``, ``connect_timeout``, ``request_timeout``, ...) and otherwise from the usual AWS environment
(``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_DEFAULT_REGION``,
``AWS_ENDPOINT_URL``). Credentials never go into the URI: it is written into manifests and shown in logs.

Every object is written whole: :meth:`Location.write_bytes` sends the bytes to their final key in one
upload, and an object store makes an object visible only once its upload completed (a single PUT, or a
multipart upload on completion), so a reader never sees part of a part. Nothing here names a game.
"""

from __future__ import annotations

import functools
import os
import re
import urllib.parse
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.fs as pafs

MAX_LIST = 10_000_000          # objects listed under one results prefix before giving up
PROBE_TIMEOUT_S = "5"          # connect timeout used unless the URI sets one (an unreachable endpoint fails fast)


class StorageError(ValueError):
    """A results URI that cannot be used (unknown scheme, no bucket, unreachable endpoint, ...); one line."""


def is_uri(text: str | os.PathLike) -> bool:
    """``text`` names a location on a remote file system (``scheme://...``), not a local path."""
    s = str(text)
    scheme, sep, _ = s.partition("://")
    return bool(sep) and scheme.isascii() and scheme.replace("+", "").replace("-", "").isalnum() \
        and scheme.lower() != "file"


def shown(uri: str) -> str:
    """A URI as shown in messages: without its query (which may hold endpoint settings) or user info."""
    p = urllib.parse.urlsplit(uri)
    host = p.hostname or ""
    return f"{p.scheme}://{host}{p.path}".rstrip("/")


@dataclass(frozen=True)
class Location:
    """A results folder on a remote file system: ``fs`` and the folder's path in it (``root``)."""

    uri: str                     # as given (its query kept: workers open the same location from it)
    fs: pafs.FileSystem
    root: str                    # "bucket/prefix" (no trailing slash)

    @property
    def scheme(self) -> str:
        return urllib.parse.urlsplit(self.uri).scheme.lower()

    def name(self, rel: str = "") -> str:
        """``rel`` as shown in messages (``s3://bucket/prefix/rel``)."""
        base = shown(self.uri)
        return f"{base}/{rel}" if rel else base

    def path(self, rel: str) -> str:
        """The full path of ``rel`` (relative to the folder): a ``rel`` that is absolute or has ``.``, ``..`` or
        empty segments is refused (StorageError), so no key ever leaves ``root`` (a manifest or a listing is
        read from the store, and the store's HTTP client would resolve ``root/../x`` into another bucket)."""
        if rel and (why := _bad_key(rel, relative=True)):
            raise StorageError(f"{self.name()}: object name {rel[:200]!r} {why}; it must stay inside the folder")
        return f"{self.root}/{rel}" if rel else self.root

    def info(self, rel: str) -> pafs.FileInfo:
        return self.fs.get_file_info(self.path(rel))

    def exists(self, rel: str) -> bool:
        return self.info(rel).type == pafs.FileType.File

    def read_bytes(self, rel: str, limit: int) -> bytes | None:
        """The object ``rel`` (at most ``limit`` bytes, else StorageError), None when there is none."""
        try:
            with self.fs.open_input_file(self.path(rel)) as f:
                size = f.size()
                if size > limit:
                    raise StorageError(f"{self.name(rel)}: {size:,} bytes; at most {limit:,} expected")
                return f.read()
        except FileNotFoundError:
            return None
        except (OSError, pa.ArrowException) as e:
            if "not found" in str(e).lower() or "does not exist" in str(e).lower():
                return None
            raise StorageError(f"{self.name(rel)}: cannot read it ({one_line(e)})") from None

    def write_bytes(self, rel: str, data: bytes | str) -> None:
        """Write ``data`` to ``rel`` as one object, visible only once whole (see the module doc)."""
        raw = data.encode() if isinstance(data, str) else data
        try:
            with self.fs.open_output_stream(self.path(rel), metadata={}) as f:
                f.write(raw)
        except (OSError, pa.ArrowException) as e:
            raise StorageError(f"{self.name(rel)}: cannot write it ({one_line(e)})") from None

    def files(self) -> dict[str, int]:
        """{relative path: size} of every object under the folder."""
        try:
            infos = self.fs.get_file_info(pafs.FileSelector(self.root, recursive=True, allow_not_found=True))
        except (OSError, pa.ArrowException) as e:
            raise StorageError(f"{self.name()}: cannot list it ({one_line(e)})") from None
        if len(infos) > MAX_LIST:
            raise StorageError(f"{self.name()}: more than {MAX_LIST:,} objects; not a results folder")
        n = len(self.root) + 1
        return {i.path[n:]: i.size for i in infos if i.type == pafs.FileType.File and i.path.startswith(self.root + "/")}

    def delete(self, rel: str) -> None:
        try:
            self.fs.delete_file(self.path(rel))
        except FileNotFoundError:
            pass
        except (OSError, pa.ArrowException) as e:
            raise StorageError(f"{self.name(rel)}: cannot delete it ({one_line(e)})") from None

    def move(self, rel: str, dest: str) -> None:
        """Copy ``rel`` to ``dest``, then delete ``rel`` (an object store has no rename)."""
        try:
            self.fs.copy_file(self.path(rel), self.path(dest))
        except (OSError, pa.ArrowException) as e:
            raise StorageError(f"{self.name(rel)}: cannot copy it to {self.name(dest)} ({one_line(e)}); "
                               "nothing was deleted") from None
        self.delete(rel)


def one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:200]


# characters that would let a URI or an object name reach outside its folder once decoded or sent: the
# percent-encoded dot, slash and backslash (pyarrow decodes them), the backslash, and control characters
_ENCODED = re.compile(r"%(2e|2f|5c)", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _bad_key(path: str, relative: bool) -> str | None:
    """Why the object path ``path`` could leave its bucket or folder, or None: ``.`` or ``..`` segments, empty
    segments (``//``), backslashes, control characters, percent-encoded dots or slashes; with ``relative``, a
    leading ``/`` (an absolute name). A URI's path keeps its leading ``/`` and may end in one ``/``."""
    if _CONTROL.search(path):
        return "has a control character"
    if "\\" in path:
        return "has a backslash (\\)"
    if _ENCODED.search(path):
        return "has a percent-encoded dot, slash or backslash (%2e, %2f, %5c)"
    if relative and path.startswith("/"):
        return "is absolute"
    body = path if relative else path[1:].removesuffix("/")
    if not body:
        return None if not relative else "is empty"
    segments = body.split("/")
    if any(seg in (".", "..") for seg in segments):
        return "has a '.' or '..' segment"
    if "" in segments:
        return "has an empty segment (//)"
    return None


def _check_uri(uri: str, p: urllib.parse.SplitResult) -> None:
    """Refuse a URI whose bucket or path could name another bucket once decoded or sent (StorageError)."""
    if _CONTROL.search(uri):           # urlsplit drops tabs and newlines silently: look at the URI as given
        raise StorageError(f"{uri[:200]!r}: has a control character; expected {p.scheme}://BUCKET/PREFIX")
    host = p.netloc.rpartition("@")[2]
    if _CONTROL.search(host) or "\\" in host or "%" in host or not host.strip("."):
        raise StorageError(f"{shown(uri)[:200]!r}: the bucket {host[:100]!r} is not a name; expected "
                           f"{p.scheme}://BUCKET/PREFIX (letters, digits, '-', '.')")
    if p.fragment or "#" in uri:
        raise StorageError(f"{shown(uri)[:200]!r}: a '#' is not allowed in a results URI; expected "
                           f"{p.scheme}://BUCKET/PREFIX")
    why = _bad_key(p.path, relative=False)
    if why:
        raise StorageError(f"{shown(uri)[:200]!r}: the prefix {p.path[:200]!r} {why}; expected "
                           f"{p.scheme}://BUCKET/PREFIX with plain names between single slashes")


S3_PARAMS = ("endpoint_override", "scheme", "region", "connect_timeout", "request_timeout")


def _s3(uri: str) -> tuple[pafs.FileSystem, str]:
    """An ``s3://`` URI as (S3FileSystem, "bucket/prefix"): its query parameters (S3_PARAMS) override the AWS
    environment; a short connect timeout unless it sets one, so an unreachable endpoint fails fast."""
    p = urllib.parse.urlsplit(uri)
    try:
        q = dict(urllib.parse.parse_qsl(p.query, keep_blank_values=True, strict_parsing=bool(p.query)))
    except ValueError:
        raise StorageError(f"{shown(uri)}: unreadable query {p.query!r}; expected NAME=VALUE&... with names "
                           f"{', '.join(S3_PARAMS)}") from None
    unknown = sorted(set(q) - set(S3_PARAMS))
    if unknown:
        raise StorageError(f"{shown(uri)}: unknown query parameter {unknown[0]!r}; allowed: {', '.join(S3_PARAMS)}")
    if q.get("scheme", "https") not in ("http", "https"):
        raise StorageError(f"{shown(uri)}: scheme={q['scheme']!r}; allowed: http, https")
    kw: dict = {}
    for key in ("connect_timeout", "request_timeout"):
        try:
            kw[key] = float(q.get(key, PROBE_TIMEOUT_S if key == "connect_timeout" else "60"))
        except ValueError:
            raise StorageError(f"{shown(uri)}: {key}={q[key]!r}; expected seconds (a number)") from None
        if not 0 < kw[key] <= 3600:
            raise StorageError(f"{shown(uri)}: {key}={q[key]!r}; expected seconds in (0, 3600]")
    endpoint, scheme = q.get("endpoint_override"), q.get("scheme")
    if not endpoint and os.environ.get("AWS_ENDPOINT_URL"):      # read here: not every pyarrow build reads it
        ep = urllib.parse.urlsplit(os.environ["AWS_ENDPOINT_URL"])
        endpoint, scheme = ep.netloc or None, scheme or ep.scheme or None
    if endpoint:
        kw["endpoint_override"] = endpoint
    if scheme:
        kw["scheme"] = scheme
    region = q.get("region") or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    kw["region"] = region or "us-east-1"
    kw["retry_strategy"] = pafs.AwsStandardS3RetryStrategy(max_attempts=3)
    return pafs.S3FileSystem(**kw), f"{p.hostname}{p.path}"


@functools.lru_cache(maxsize=16)
def _open(uri: str) -> Location:
    p = urllib.parse.urlsplit(uri)
    if p.username or p.password:
        raise StorageError(f"{shown(uri)}: credentials in the URI are refused (they would be stored in the manifest "
                           "and shown in logs); use AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY")
    if not p.hostname:
        raise StorageError(f"{uri!r}: no bucket; expected {p.scheme}://BUCKET/PREFIX")
    _check_uri(uri, p)
    try:
        if p.scheme.lower() == "s3":
            fs, root = _s3(uri)
        elif p.scheme.lower() in ("gs", "gcs") and "retry_limit_seconds" not in p.query:    # fail fast, not in 15 min
            fs, root = pafs.FileSystem.from_uri(uri + ("&" if p.query else "?") + "retry_limit_seconds=" + PROBE_TIMEOUT_S)
        else:
            fs, root = pafs.FileSystem.from_uri(uri)
    except StorageError:
        raise
    except (pa.ArrowException, OSError, ValueError) as e:
        msg = one_line(e)
        if "unrecognized filesystem type" in msg.lower() or "unknown" in msg.lower() and "scheme" in msg.lower():
            raise StorageError(f"{shown(uri)}: unknown storage scheme {p.scheme!r}; use a local folder or a URI "
                               "pyarrow opens (s3://BUCKET/PREFIX, gs://BUCKET/PREFIX, hdfs://...)") from None
        raise StorageError(f"{shown(uri)}: cannot open it ({msg})") from None
    return Location(uri, fs, root.rstrip("/"))


def open_location(uri: str, probe: bool = True) -> Location:
    """The remote results folder ``uri``; ``probe`` checks that its bucket answers (one request), so a wrong
    endpoint, a missing bucket or refused credentials is one line before any work (StorageError)."""
    loc = _open(str(uri))
    if probe:
        bucket = loc.root.split("/", 1)[0]
        try:
            info = loc.fs.get_file_info(bucket)
        except (OSError, pa.ArrowException) as e:
            hint = ("check the endpoint (endpoint_override=HOST:PORT in the URI or AWS_ENDPOINT_URL) and the "
                    "credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)") if loc.scheme == "s3" else \
                "check the address and the credentials"
            raise StorageError(f"{loc.name()}: the storage does not answer ({one_line(e)}); {hint}") from None
        if info.type == pafs.FileType.NotFound:
            raise StorageError(f"{loc.name()}: no bucket {bucket!r} at this endpoint; create it first")
    return loc
