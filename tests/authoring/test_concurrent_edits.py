"""Concurrent authors: many real `kb` processes editing one record at once. Every command that
exits 0 has its edit in the file; one that cannot have the lock says so in one line."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from incident_kb.authoring import edit_lock
from incident_kb.records.yaml_source import read_yaml_file

from .test_authoring import HYP, INCIDENT, commented_kb  # noqa: F401 - a fixture

pytestmark = pytest.mark.slow  # dozens of real kb processes racing: left out of `make test-fast`

INCIDENT_FILE = f"incidents/{INCIDENT}.yaml"


def start_kb(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "incident_kb.cli", *args, "--root", str(root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(processes: list[subprocess.Popen[str]]) -> list[tuple[int, str]]:
    results = []
    for process in processes:
        _, err = process.communicate(timeout=300)
        results.append((process.returncode, err))
    return results


def test_parallel_evidence_on_one_incident_is_all_kept(commented_kb):
    count = 24
    texts = [f"parallel observation number {i}" for i in range(count)]
    processes = [start_kb(commented_kb, "evidence", "add", INCIDENT, HYP, "--kind", "observation", "--stance",
                          "against", "--date", "2026-11-05", "--text", text) for text in texts]
    results = finish(processes)
    for code, err in results:
        assert code == 0 or (code == 2 and err.count("\n") == 1), err  # exit 0, or one line saying why not
    kept = [text for text, (code, _) in zip(texts, results) if code == 0]
    assert len(kept) == count, [err for _, err in results if err]  # on this machine every one gets its turn
    loaded = read_yaml_file(commented_kb / INCIDENT_FILE)
    hypothesis = next(h for h in loaded.value["hypotheses"] if h["id"] == HYP)
    recorded = [e["text"] for e in hypothesis["evidence"]]
    assert sorted(t for t in recorded if t.startswith("parallel")) == sorted(kept)  # each once, none lost
    assert [p.name for p in (commented_kb / "incidents").iterdir()] == [f"{INCIDENT}.yaml"]  # nothing left over


def test_parallel_lessons_all_land(commented_kb):
    processes = [start_kb(commented_kb, "lesson", "add", INCIDENT, f"lesson {i}") for i in range(6)]
    results = finish(processes)
    assert all(code == 0 for code, _ in results), results
    lessons = read_yaml_file(commented_kb / INCIDENT_FILE).value["lessons"]
    assert sorted(lessons[-6:]) == [f"lesson {i}" for i in range(6)]


def test_a_command_that_cannot_have_the_lock_stops_with_one_line(kb, commented_kb, monkeypatch):
    monkeypatch.setattr(edit_lock, "LOCK_TIMEOUT", 0.2)
    before = (commented_kb / INCIDENT_FILE).read_bytes()
    fd = os.open(commented_kb, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another writer holds it
        result = kb("lesson", "add", INCIDENT, "waits in vain", "--root", commented_kb)
    finally:
        os.close(fd)
    assert result.code == 2
    assert result.err == (f"kb: {commented_kb}: another kb command has been writing records there for 0.2 s; "
                          "nothing changed, run the command again when it is done\n")
    assert (commented_kb / INCIDENT_FILE).read_bytes() == before
    assert kb("lesson", "add", INCIDENT, "now it can", "--root", commented_kb).code == 0


@pytest.mark.parametrize("command", [
    ("lesson", "add", INCIDENT, "x"),
    ("new", "incident", "another-one", "--title", "t"),
    ("fmt",),
])
def test_every_writing_command_takes_the_lock(kb, commented_kb, monkeypatch, command):
    monkeypatch.setattr(edit_lock, "LOCK_TIMEOUT", 0.1)
    fd = os.open(commented_kb, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        result = kb(*command, "--root", commented_kb)
    finally:
        os.close(fd)
    assert result.code == 2 and "another kb command has been writing records there" in result.err
