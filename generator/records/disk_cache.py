"""A verified on-disk cache for what is costly to derive from content-addressed inputs.

Entries live under `.cache/incident-kb/` in the knowledge base, keyed by what they were derived
from (git blob and commit ids are content hashes). An entry is trusted only when its signature
checks: an HMAC-SHA256 over the whole file, with a random key kept outside the repository (in the
user's cache folder, `$XDG_CACHE_HOME/incident-kb/cache.key`), so nothing a repository carries (a
committed or restored `.cache/`) can plant an entry, and a corrupt, truncated, foreign (another
machine's, another version's) entry is ignored and rebuilt. The signature is checked before the
payload is unpickled. The entry also names the code that wrote it: any change to the package
invalidates every entry. Caching only costs time: a cache that cannot be read or written is
skipped silently. Knows nothing of records or git.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import secrets
import sys
import sysconfig
from pathlib import Path
from typing import Any

from .files import UnreadableFile, read_bounded

CACHE_FOLDER = Path(".cache") / "incident-kb"  # under the knowledge base's root
_MAGIC = b"incident-kb cache 1\n"
_DIGEST = 32
_MAX_ENTRY = 1 << 30  # far above what 10,000 records or their history take
_PACKAGE = Path(__file__).resolve().parents[1]
_fingerprint: bytes | None = None
_key: bytes | None = None


def cache_enabled() -> bool:
    """`INCIDENT_KB_CACHE=off` turns every cache off (a cold run, as in benchmarks)."""
    return os.environ.get("INCIDENT_KB_CACHE", "").lower() not in ("off", "0", "no", "false")


def read_entry(root: Path, name: str, key: object) -> Any | None:
    """The payload stored under `name` for `key`, or None when absent, unverified or for another key."""
    secret = _secret() if cache_enabled() else None
    if secret is None or _folder(root) is None:
        return None
    try:  # a regular file inside the repository, bounded: a committed link to /dev/zero, a FIFO, is no entry
        blob = read_bounded(root / CACHE_FOLDER / name, _MAX_ENTRY, root)
    except UnreadableFile:
        return None
    if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + _DIGEST:
        return None
    signature, body = blob[len(_MAGIC):len(_MAGIC) + _DIGEST], blob[len(_MAGIC) + _DIGEST:]
    if not hmac.compare_digest(signature, hmac.new(secret, body, hashlib.sha256).digest()):
        return None  # corrupt, or not written by this user with this key: never unpickled
    try:
        stored_key, payload = pickle.loads(body)
    except Exception:  # noqa: BLE001 - a signed entry from an older layout: rebuild it
        return None
    return payload if stored_key == (_code_fingerprint(), key) else None


def write_entry(root: Path, name: str, key: object, payload: object) -> None:
    """Store `payload` under `name` for `key`, atomically (a temporary file renamed into place)."""
    secret = _secret() if cache_enabled() else None
    if secret is None:
        return
    try:
        body = pickle.dumps(((_code_fingerprint(), key), payload), protocol=pickle.HIGHEST_PROTOCOL)
        for level in (root / CACHE_FOLDER.parent, root / CACHE_FOLDER):
            if level.is_symlink():
                return
            level.mkdir(exist_ok=True)
        folder = _folder(root)
        if folder is None:
            return
        if not os.path.lexists(folder / ".gitignore"):  # never committed by accident, whatever the repository ignores
            _write_new(folder / ".gitignore", b"# written by incident-kb\n*\n")
        temporary = folder / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        _write_new(temporary, _MAGIC + hmac.new(secret, body, hashlib.sha256).digest() + body)
        temporary.replace(folder / name)  # replaces a link of that name, never what it points to
    except (OSError, pickle.PicklingError, RecursionError):
        pass  # a cache that cannot be written only costs time


def _folder(root: Path) -> Path | None:
    """The cache folder, unless it or `.cache` is a link (a repository could point it anywhere) or
    cannot be looked at."""
    folder = root / CACHE_FOLDER
    try:
        if folder.parent.is_symlink() or folder.is_symlink() or not folder.is_dir():
            return None
    except OSError:
        return None
    return folder


def _write_new(path: Path, data: bytes) -> None:
    """Create `path` and write `data`; never through a link, never over an existing file."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def blob_id(data: bytes) -> str:
    """Git's id for a file with this content (`git hash-object`), without running git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _secret() -> bytes | None:
    """This user's cache key, created on first use; None when it can be neither read nor made."""
    global _key
    if _key is None:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "incident-kb" / "cache.key"
        try:
            _key = path.read_bytes()
        except OSError:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                temporary = path.with_name(f".cache.key.{os.getpid()}.tmp")
                descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(secrets.token_bytes(32))
                os.replace(temporary, path)  # two first runs at once: one key wins, both read it
                _key = path.read_bytes()
            except OSError:
                return None
        if len(_key) < 16:
            _key = None
    return _key


def _code_fingerprint() -> bytes:
    """What wrote an entry: this package's source, Python's version and the installed distributions
    (their names carry their versions: pydantic's, ruamel.yaml's...). Imports none of them."""
    global _fingerprint
    if _fingerprint is None:
        digest = hashlib.sha256(sys.version.encode())
        try:
            installed = sorted(name for name in os.listdir(sysconfig.get_paths()["purelib"]) if name.endswith(".dist-info"))
        except OSError:  # pragma: no cover - no site-packages to list
            installed = []
        digest.update("\0".join(installed).encode())
        for path in sorted(_PACKAGE.rglob("*.py")):
            digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
        _fingerprint = digest.digest()
    return _fingerprint
