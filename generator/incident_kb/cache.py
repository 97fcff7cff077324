"""The one cache: what is costly to derive, kept between runs in the user's cache folder, one store
per knowledge base, never in the repository or its `.git` (as pre-commit keeps `~/.cache/pre-commit`).

Where: `$XDG_CACHE_HOME/incident-kb/` (default `~/.cache/incident-kb/`), a folder per knowledge
base named by a hash of its real path (`repository` in it says which). A cache folder inside the
repository being checked (a CI set-up that caches a folder of the checkout) is not used: no cache,
and one warning line (`kb check` says it whether or not the cache is on: a cached run prints what a cold
one prints).

Keys, one way: an entry is stored under a name with the key it was derived from (every input, as
JSON); the store adds the fingerprint of this package's code, Python and the installed
distributions. An entry read back under any other key is no entry.

Trust: entries are JSON (nothing read back can run code), in folders this user made (mode 0700)
and files this user wrote; a folder or file owned by someone else, writable by others, or reached
through a link is neither read nor written. Each entry carries a digest of its body: a corrupt or
truncated one is ignored and rebuilt.

Writes go to a temporary file beside the entry, renamed into place, and removed whatever goes
wrong (a full or read-only disk): a cache that cannot be read or written costs time, never a
result. Knows nothing of records or git.

Beside it, for work that keeps no store (the temporary folders of --staged and --base): a memo that
lives for the length of a `with` block in this process (`ProcessMemo`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import stat
import sys
import sysconfig
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Generic, TypeVar

from .places import is_inside, repository_top

CACHE_VARIABLE = "INCIDENT_KB_CACHE"
_MAGIC = b"incident-kb cache 2"
_MAX_ENTRY = 1 << 30  # far above what 10,000 records or their history take
_PACKAGE = Path(__file__).resolve().parent
_fingerprint: str | None = None
_warned: set[str] = set()


def cache_enabled() -> bool:
    """`INCIDENT_KB_CACHE=off` turns the cache off: a cold run, reading and writing nothing."""
    return os.environ.get(CACHE_VARIABLE, "").lower() not in ("off", "0", "no", "false")


def user_cache_folder() -> Path:
    """`$XDG_CACHE_HOME/incident-kb`, or `~/.cache/incident-kb` (the XDG default)."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "incident-kb"


def open_store(root: Path, warn: Callable[[str], None] | None = None) -> Store | None:
    """The store of the knowledge base at `root`; None when the cache is off, or its folder is inside
    the repository (`warn` is told once a process, default: a line on stderr), or cannot be made ours."""
    if not cache_enabled():
        return None
    real = os.path.realpath(root)
    base = user_cache_folder()
    warning = cache_folder_warning(root)
    if warning is not None:
        if warning not in _warned:  # once a process: the site build opens it several times
            _warned.add(warning)
            (warn or say)(warning)
        return None
    folder = base / hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    if not (_own_folder(base) and _own_folder(folder)):
        return None
    store = Store(folder)
    if not os.path.lexists(folder / "repository"):  # which knowledge base this is, for whoever looks
        store.write_text("repository", real + "\n")
    return store


def cache_folder_warning(root: Path, said: bool = False) -> str | None:
    """The warning when the cache folder lies inside the repository holding `root` (then no store is
    used), whether or not the cache is on: a command whose output must not depend on the cache (`kb
    check`) says it in every run. `said`: it goes out now, so `open_store` does not say it again."""
    real = os.path.realpath(root)
    base = user_cache_folder()
    top = repository_top(Path(real)) or Path(real)
    if not (is_inside(base, top) or is_inside(base, real)):
        return None
    warning = (f"warning: the cache folder {base} is inside the repository {top}, where anyone who commits could "
               "plant entries; kb keeps no cache there (set XDG_CACHE_HOME to a folder outside the repository)")
    if said:
        _warned.add(warning)
    return warning


def user_store() -> Store | None:
    """The user's cache folder itself as a store (for the crash log): None unless it is a folder of
    this user's that nobody else may write to and no link; its files written as the store writes them
    (a new file renamed into place: a FIFO or link at the name is replaced, never opened)."""
    base = user_cache_folder()
    return Store(base) if _own_folder(base) else None


def say(line: str) -> None:
    """`line` on stderr after "kb: ", if there is a stderr to write to: kb's notes about its cache and
    clones, which no command's output holds."""
    try:
        print(f"kb: {line}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


def _own_folder(folder: Path) -> bool:
    """Whether `folder` is a folder (not a link) that this user owns and nobody else may write to;
    made (mode 0700) when missing."""
    try:
        if not os.path.lexists(folder):
            os.makedirs(folder, mode=0o700, exist_ok=True)
        found = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(found.st_mode) and found.st_uid == os.geteuid() and \
        not found.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


class Store:
    """One knowledge base's entries: JSON values by name, each valid for one key."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def read(self, name: str, key: object) -> Any | None:
        """The payload stored under `name` for `key`, or None (absent, another key, corrupt, not ours)."""
        blob = self._read_own(name)
        if blob is None:
            return None
        header, _, body = blob.partition(b"\n")
        parts = header.split(b" ")
        if len(parts) != 5 or b" ".join(parts[:3]) != _MAGIC or parts[3] != _key_digest(key).encode():
            return None
        if parts[4] != hashlib.sha256(body).hexdigest().encode():
            return None  # corrupt or truncated
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            return None

    def write(self, name: str, key: object, payload: object) -> bool:
        """Store `payload` (JSON values) under `name` for `key`; False when it could not be."""
        try:
            body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode(
                "utf-8", "surrogatepass")
        except (TypeError, ValueError, RecursionError, UnicodeError):
            return False
        header = b" ".join((_MAGIC, _key_digest(key).encode(), hashlib.sha256(body).hexdigest().encode()))
        return self._write_own(name, header + b"\n" + body)

    def holds(self, name: str) -> bool:
        """Whether an entry `name` is there (for whatever key)."""
        return os.path.lexists(self.folder / name)

    def remove(self, name: str) -> None:
        """Forget the entry `name` (nothing when it is not there)."""
        try:
            os.unlink(self.folder / name)
        except OSError:
            pass

    def write_text(self, name: str, text: str) -> bool:
        return self._write_own(name, text.encode("utf-8", "surrogateescape"))

    def _read_own(self, name: str) -> bytes | None:
        """The bytes of our regular file `name`: never through a link, never another user's."""
        try:
            fd = os.open(self.folder / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode) or found.st_uid != os.geteuid() or found.st_size > _MAX_ENTRY \
                    or found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return None
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        except OSError:
            return None
        finally:
            os.close(fd)

    def _write_own(self, name: str, data: bytes) -> bool:
        temporary = self.folder / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temporary, self.folder / name)  # replaces a link of that name, never what it points to
            return True
        except OSError:  # a full disk: nothing half-written stays behind
            try:
                os.unlink(temporary)
            except OSError:
                pass
            return False


def _key_digest(key: object) -> str:
    """The one way a key is made: the code's fingerprint and the inputs, as canonical JSON."""
    text = json.dumps(key, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_unknown)
    return hashlib.sha256(code_fingerprint().encode() + b"\0" + text.encode("utf-8", "surrogatepass")).hexdigest()


def _unknown(value: object) -> object:
    raise TypeError(f"a cache key holds only JSON values, not {type(value).__name__}")


def code_fingerprint() -> str:
    """What wrote an entry: this package's source, Python's version and the installed distributions
    (their names carry their versions: pydantic's, ruamel.yaml's...). Imports none of them."""
    global _fingerprint
    if _fingerprint is None:
        digest = hashlib.sha256(sys.version.encode())
        try:
            installed = sorted(name for name in os.listdir(sysconfig.get_paths()["purelib"])
                               if name.endswith(".dist-info"))
        except OSError:  # pragma: no cover - no site-packages to list
            installed = []
        digest.update("\0".join(installed).encode())
        for path in sorted(_PACKAGE.rglob("*.py")):
            digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
        _fingerprint = digest.hexdigest()
    return _fingerprint


_K = TypeVar("_K")
_V = TypeVar("_V")


class ProcessMemo(Generic[_K, _V]):
    """Values kept while a `with memo.active():` block runs in this process, for work that keeps no
    store: `entries` is a dict within it (a nested block shares the outer one's), None outside any
    (nothing is kept, nothing read back)."""

    def __init__(self) -> None:
        self.entries: dict[_K, _V] | None = None

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        outer = self.entries
        if outer is None:
            self.entries = {}
        try:
            yield
        finally:
            self.entries = outer
