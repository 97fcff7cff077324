"""Changing a record file safely: read it, change its text in place, check the result, write it
atomically.

The result is checked the way `kb validate` checks records (the schema, then the whole knowledge
base's consistency with the changed record in place) before anything is written. A change that
would leave the records invalid is refused with the findings, and the file stays byte-identical.
Writing goes to a temporary file in the same folder, renamed over the record with the record's
mode; a file that changed on disk while it was being edited is not overwritten, a read-only one is
not replaced, and one size limit (the one validation applies) holds for reading and writing. A
command holds the knowledge base's edit lock (`edit_lock.py`) from reading to writing, so concurrent
commands take turns. Temporary files a killed command left behind (`.NAME.*.tmp`, git-ignored) are
removed by the next write of that record. Knows how to change a file safely, not what an author
means by it: that is `acts.py`.
"""

from __future__ import annotations

import glob
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..check.pipeline import KnowledgeBase, load_knowledge_base, record_files
from ..findings import Finding, KbError, Severity
from ..records.schema import SLUG_PATTERN, Incident, Knob
from ..records.validate import validate_record
from ..records.vocabulary import RECORD_SUFFIXES, RecordKind
from ..records.yaml_source import MAX_BYTES, parse_yaml
from ..repository.files import TooLarge, UnreadableFile, read_bounded
from ..repository.writes import Changed, Unwritable, way_out, write_file
from ..wording import article
from .line_ends import LineEnds
from .yaml_splice import Editor


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
    line_ends: LineEnds | None = None  # each line's own ending in the file
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
        """`text` as the file's bytes: its byte order mark, and each kept line's own line ending."""
        ends = self.line_ends.restore(text) if self.line_ends is not None else text
        return (("\ufeff" if self.bom else "") + ends).encode("utf-8")


def record_path(root: Path, kind: RecordKind, record_id: str) -> Path:
    if not re.match(SLUG_PATTERN, record_id):
        raise KbError(f"'{record_id}' is not {article(kind)} id; an id is a slug of lowercase letters, digits and "
                      "dashes, e.g. 'multi-round-harness-hang'")
    folder = root / kind.folder
    for suffix in RECORD_SUFFIXES:  # whatever is there (a link, a pipe): the command says why it is no record
        if os.path.lexists(folder / f"{record_id}{suffix}"):
            return folder / f"{record_id}{suffix}"
    # Records may be grouped in subfolders; the file name is the id wherever it lives.
    for path in record_files(root, kind):
        if path.stem == record_id:
            return path
    return folder / f"{record_id}{RECORD_SUFFIXES[0]}"


def open_record(root: Path, kind: RecordKind, record_id: str) -> RecordFile:
    """The record `record_id` of `kind`, to edit; a missing, unreadable or read-only file is a KbError
    (exit 2)."""
    path = require_record(root, kind, record_id)
    record = read_record(root, kind, path)
    _refuse_read_only(path, record.rel_path, path.stat().st_mode)
    return record


def require_record(root: Path, kind: RecordKind, record_id: str) -> Path:
    """The file of the record `record_id` of `kind`; one that does not exist is a KbError, worded
    the same for every command: "there is no knob 'x' (knobs/x.yaml does not exist); ..."."""
    path = record_path(root, kind, record_id)
    if not os.path.lexists(path):  # a link or a pipe there is refused by read_record, saying which
        rel = path.relative_to(root).as_posix()
        hint = f"`kb new {kind} {record_id}` creates it" if (root / kind.folder).is_dir() else \
            "is --root the knowledge base's repository?"
        raise KbError(f"there is no {kind} '{record_id}' ({rel} does not exist); {hint}")
    return path


def read_record(root: Path, kind: RecordKind, path: Path) -> RecordFile:
    """A record file as it is on disk, to be replaced by an edit; a file kb must not edit (too big
    for a record, a link, unreadable) is a KbError."""
    rel = path.relative_to(root).as_posix()
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            raise KbError(f"{rel} is a symbolic link; kb edits only regular files (an edit would replace the "
                          "link with a copy), so edit the file it points to by hand")
        if not stat.S_ISREG(info.st_mode):
            raise KbError(f"{rel} is not a regular file; kb edits only regular files")
        raw = read_bounded(path, MAX_BYTES, root)
        text = raw.decode("utf-8")
    except TooLarge as exc:
        raise KbError(_too_big(rel, exc.size)) from None
    except (UnreadableFile, OSError, UnicodeDecodeError) as exc:
        raise KbError(f"{rel}: cannot read the record ({exc})") from None
    bom = text.startswith("\ufeff")
    line_ends = LineEnds.of(text.removeprefix("\ufeff"))
    return RecordFile(root, kind, path, raw, line_ends.text, line_ends, bom)


def _too_big(rel: str, size: int) -> str:
    return (f"{rel} is {_kib(size)}; a record must be under {MAX_BYTES // 1024} KiB (the limit kb check "
            "applies), so kb does not edit it; nothing changed")


def _kib(size: int) -> str:
    return f"{-(-size // 1024)} KiB"


def _refuse_read_only(path: Path, rel: str, mode: int) -> None:
    """A file its owner made read-only stays as it is, whoever runs kb (root included)."""
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise KbError(f"{rel} is read-only; kb does not replace it (make it writable, e.g. chmod u+w {rel}, "
                      "to edit it); nothing changed")


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
    size = len(record.encode(text))
    if size > MAX_BYTES:
        raise KbError(f"not written: {record.rel_path} would be {_kib(size)}; a record must be under "
                      f"{MAX_BYTES // 1024} KiB (the limit kb check applies); nothing changed")
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
    """Write `text` as the record, with the file's own line ends, if the file still holds what was read.

    The caller holds the edit lock, so temporary files of this record that are lying around were
    left by a command that was killed: they go first."""
    if way_out(record.root, record.path) is None:  # else the write below refuses: nothing is removed out there
        remove_leftovers(record.path)
    write_atomically(record.path, record.encode(text), record.raw, record.root)


def remove_leftovers(path: Path) -> None:
    """Delete the temporary files a killed write of `path` left behind (`.NAME.*.tmp`)."""
    try:
        leftovers = list(path.parent.glob(f".{glob.escape(path.name)}.*.tmp"))
    except OSError:
        return
    for leftover in leftovers:
        try:
            if leftover.is_file() and not leftover.is_symlink():
                leftover.unlink()
        except OSError:
            pass  # not ours to fight over: it stays ignored by git


def _errors_caused(record: RecordFile, after: Sequence[Finding]) -> list[Finding]:
    """Errors in the edited file, and errors elsewhere that were not there before the change."""
    errors = [f for f in after if f.severity is Severity.ERROR]
    elsewhere = [f for f in errors if f.path != record.rel_path]
    if elsewhere:
        before = load_knowledge_base(record.root).findings
        known = {(f.path, f.code, f.subject, f.message) for f in before}
        elsewhere = [f for f in elsewhere if (f.path, f.code, f.subject, f.message) not in known]
    return [f for f in errors if f.path == record.rel_path] + elsewhere


def write_atomically(path: Path, data: bytes, expected: bytes | None, root: Path | None = None) -> None:
    """Replace `path` with `data` (or create it when `expected` is None), all at once, through no
    link that leads out of the knowledge base `root` (`repository/writes.py`; without `root`, its folder).

    The file must still hold `expected`: an edit made meanwhile (in an editor, by another command)
    is not overwritten.
    """
    if expected is not None:
        try:
            mode = path.lstat().st_mode & 0o7777
        except OSError as exc:
            raise KbError(f"{path}: cannot read it again before writing ({exc})") from None
        _refuse_read_only(path, str(path), mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        folder_mode = path.parent.stat().st_mode
    except OSError as exc:
        raise KbError(f"{path}: cannot write next to it ({exc.strerror or exc}); nothing changed") from None
    if not folder_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise KbError(f"{path.parent} is read-only; kb does not write into it (make it writable to edit records "
                      "there); nothing changed")
    try:
        write_file(root or path.parent, path, data, replace=expected is not None, expected=expected, mode=mode)
    except Changed:
        raise KbError(f"{path}: the file changed while kb was editing it; nothing written, run the command again") \
            from None
    except Unwritable as exc:
        if expected is None and exc.path == path and os.path.lexists(path):
            raise KbError(f"{path} already exists; kb new never overwrites a record") from None
        raise KbError(f"{exc.path} {exc.why}; nothing changed") from None
