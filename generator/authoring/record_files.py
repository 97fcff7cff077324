"""Changing a record file safely: read it, change its text in place, check the result, write it
atomically.

The result is checked the way `kb validate` checks records (the schema, then the whole knowledge
base's consistency with the changed record in place) before anything is written. A change that
would leave the records invalid is refused with the findings, and the file stays byte-identical.
Writing goes to a temporary file in the same folder, renamed over the record with the record's
mode; a file that changed on disk while it was being edited is not overwritten. Knows how to change
a file safely, not what an author means by it: that is `authoring.py`.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..findings import Finding, KbError, Severity
from ..pipeline import KnowledgeBase, load_knowledge_base
from ..records.schema import RECORD_SUFFIXES, SLUG_PATTERN, Incident, Knob, RecordKind
from ..records.validate import validate_record
from .yaml_splice import Editor
from ..records.yaml_source import parse_yaml


class Refused(Exception):
    """The records are, or would be, invalid: the findings say why; nothing was written."""

    def __init__(self, headline: str, findings: list[Finding]) -> None:
        super().__init__(headline)
        self.headline = headline
        self.findings = findings


@dataclass
class RecordFile:
    """One record file as read: its text with '\\n' line ends, and how to write it back the same way."""

    root: Path
    kind: RecordKind
    path: Path
    raw: bytes | None  # None for a file that does not exist yet
    text: str
    newline: str = "\n"
    bom: bool = False

    @property
    def rel_path(self) -> str:
        return self.path.relative_to(self.root).as_posix()

    def open(self) -> tuple[Knob | Incident, Editor]:
        """The record as validated, and an editor over its text; a record that is not valid now is
        refused with its findings (commands edit valid records only, so they can trust its shape)."""
        record, findings = validate_record(self.kind, self.rel_path, parse_yaml(self.text))
        if findings or not isinstance(record, Knob | Incident):
            raise Refused(f"{self.rel_path} has errors; fix them first (nothing was changed)", findings)
        return record, Editor(self.text, self.rel_path)

    def encode(self, text: str) -> bytes:
        return (("\ufeff" if self.bom else "") + text.replace("\n", self.newline)).encode("utf-8")


def record_path(root: Path, kind: RecordKind, record_id: str) -> Path:
    if not re.match(SLUG_PATTERN, record_id):
        raise KbError(f"'{record_id}' is not a {kind} id; an id is a slug of lowercase letters, digits and dashes, "
                      "e.g. 'multi-round-harness-hang'")
    folder = root / kind.folder
    for suffix in RECORD_SUFFIXES:
        if (folder / f"{record_id}{suffix}").is_file():
            return folder / f"{record_id}{suffix}"
    return folder / f"{record_id}{RECORD_SUFFIXES[0]}"


def open_record(root: Path, kind: RecordKind, record_id: str) -> RecordFile:
    """The record `record_id` of `kind`; a missing or unreadable file is a KbError (exit 2)."""
    return read_record(root, kind, require_record(root, kind, record_id))


def require_record(root: Path, kind: RecordKind, record_id: str) -> Path:
    """The file of the record `record_id` of `kind`; one that does not exist is a KbError, worded
    the same for every command: "there is no knob 'x' (knobs/x.yaml does not exist); ..."."""
    path = record_path(root, kind, record_id)
    if not path.is_file():
        rel = path.relative_to(root).as_posix()
        hint = f"`kb new {kind} {record_id}` creates it" if (root / kind.folder).is_dir() else \
            "is --root the knowledge base's repository?"
        raise KbError(f"there is no {kind} '{record_id}' ({rel} does not exist); {hint}")
    return path


def read_record(root: Path, kind: RecordKind, path: Path) -> RecordFile:
    """A record file as it is on disk; an unreadable one is a KbError."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KbError(f"{path.relative_to(root).as_posix()}: cannot read the record ({exc})") from None
    bom = text.startswith("\ufeff")
    newline = "\r\n" if "\r\n" in text else "\n"
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    return RecordFile(root, kind, path, raw, text, newline, bom)


def new_record(root: Path, kind: RecordKind, record_id: str) -> RecordFile:
    """A record file that does not exist yet; refuses to stand in for an existing one."""
    path = record_path(root, kind, record_id)
    if path.exists():
        raise KbError(f"{path.relative_to(root).as_posix()} already exists; kb new never overwrites a record")
    if not (root / kind.folder).is_dir():
        raise KbError(f"{root / kind.folder} is not a folder; is --root the knowledge base's repository?")
    return RecordFile(root, kind, path, None, "")


def save(record: RecordFile, editor: Editor) -> KnowledgeBase:
    """Check the edited text and write it; returns the knowledge base as it now stands."""
    editor.check()
    return write_checked(record, editor.text)


def write_checked(record: RecordFile, text: str) -> KnowledgeBase:
    """Validate the knowledge base with `text` as the record, then write it atomically (unless it is
    what the file already holds)."""
    kb = load_knowledge_base(record.root, {record.rel_path: text})
    errors = _errors_caused(record, kb.findings)
    if errors:
        raise Refused(f"not created: {record.rel_path} would be invalid" if record.raw is None else
                      f"not written: the change would leave the records invalid ({record.rel_path} is unchanged)",
                      errors)
    if text != record.text or record.raw is None:
        write(record, text)
    return kb


def write(record: RecordFile, text: str) -> None:
    """Write `text` as the record, with the file's own line ends, if the file still holds what was read."""
    write_atomically(record.path, record.encode(text), record.raw)


def _errors_caused(record: RecordFile, after: Sequence[Finding]) -> list[Finding]:
    """Errors in the edited file, and errors elsewhere that were not there before the change."""
    errors = [f for f in after if f.severity is Severity.ERROR]
    elsewhere = [f for f in errors if f.path != record.rel_path]
    if elsewhere:
        before = load_knowledge_base(record.root).findings
        known = {(f.path, f.code, f.subject, f.message) for f in before}
        elsewhere = [f for f in elsewhere if (f.path, f.code, f.subject, f.message) not in known]
    return [f for f in errors if f.path == record.rel_path] + elsewhere


def write_atomically(path: Path, data: bytes, expected: bytes | None) -> None:
    """Replace `path` with `data` (or create it when `expected` is None), all at once.

    The file must still hold `expected`: an edit made meanwhile (in an editor, by another command)
    is not overwritten.
    """
    rel = path.name
    if expected is not None:
        try:
            current = path.read_bytes()
            mode = path.stat().st_mode & 0o7777
        except OSError as exc:
            raise KbError(f"{path}: cannot read it again before writing ({exc})") from None
        if current != expected:
            raise KbError(f"{path}: the file changed while kb was editing it; nothing written, run the command again")
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{rel}.", suffix=".tmp")
    except OSError as exc:
        raise KbError(f"{path}: cannot write next to it ({exc.strerror or exc}); nothing changed") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if expected is None:
            _create_from(tmp, path)
        else:
            os.replace(tmp, path)
    except FileExistsError:
        os.unlink(tmp)
        raise KbError(f"{path} already exists; kb new never overwrites a record") from None
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise KbError(f"{path}: cannot write it ({exc.strerror or exc}); nothing changed") from None


def _create_from(tmp: str, path: Path) -> None:
    """Move `tmp` to `path`, failing if `path` appeared meanwhile: a new record never overwrites one."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: check, then rename
        if path.exists():
            raise FileExistsError(path) from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)
