"""locks.flock_within: an exclusive lock another process holds is waited for until the deadline, then
refused; taken at once when free, and again once the holder let it go (the kernel drops it with the
holder's process)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from incident_kb.locks import flock_within

HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _held_by_another(path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_a_free_lock_is_taken_at_once(tmp_path):
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        started = time.monotonic()
        assert flock_within(fd, 5.0)
        assert time.monotonic() - started < 1.0
    finally:
        os.close(fd)


def test_a_held_lock_is_refused_at_the_deadline_and_taken_once_let_go(tmp_path):
    holder = _held_by_another(tmp_path, 60)
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        started = time.monotonic()
        assert not flock_within(fd, 0.3, poll=0.02)
        assert time.monotonic() - started >= 0.3
        holder.kill()  # the kernel drops the lock with its process
        holder.wait()
        assert flock_within(fd, 5.0)
    finally:
        os.close(fd)
        holder.kill()
        holder.wait()


def test_it_waits_for_a_holder_that_lets_go_before_the_deadline(tmp_path):
    lock = tmp_path / "a.lock"
    lock.write_text("")
    holder = _held_by_another(lock, 0.4)
    fd = os.open(lock, os.O_RDWR)
    try:
        assert flock_within(fd, 30.0)
    finally:
        os.close(fd)
        holder.wait()
