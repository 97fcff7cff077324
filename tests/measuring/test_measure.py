"""`kb measure`: the runs it plans and makes (the setting in the command's environment, `{value}`
shell-quoted, baseline and candidate alternating in a seeded order), the measurement it records, and
every way it stops with nothing written (a failing run, a metric it cannot read, an interrupt)."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time

import pytest
from ruamel.yaml import YAML

from incident_kb.measuring.runner import SIDES, plan

from ..conftest import SEED_KNOB, edit, interruptible

KNOB = "sglang-sm120-mma-target-ctas"
NAME = "SGLANG_SM120_MMA_TARGET_CTAS"


def _logging_command(log) -> str:
    """A benchmark that writes down the value it got, and prints a throughput that depends on it."""
    return (f"echo \"${NAME}\" >> {shlex.quote(str(log))}; "
            f"if [ \"${NAME}\" = 512 ]; then echo 'throughput: 2720'; else echo 'throughput: 2410'; fi")


def _measurements(root) -> list[dict]:
    return YAML(typ="safe").load((root / SEED_KNOB).read_text())["measurements"]


def test_the_plan_warms_up_each_side_then_alternates_in_a_seeded_order():
    steps = plan(runs=6, warmup=2, seed=3)
    assert [(s.side, s.warmup) for s in steps[:4]] == [("baseline", True), ("candidate", True)] * 2
    pairs = [tuple(s.side for s in steps[i:i + 2]) for i in range(4, len(steps), 2)]
    assert len(pairs) == 6 and all(sorted(pair) == sorted(SIDES) for pair in pairs)
    assert len(set(pairs)) == 2, "the order within a pair is shuffled"
    assert plan(6, 2, 3) == steps and any(plan(6, 2, seed) != steps for seed in range(4, 10))


def test_the_runs_get_the_setting_and_the_measurement_is_recorded(kb, seed_kb, tmp_path):
    log = tmp_path / "values.log"
    result = kb("measure", KNOB, "--metric", "output throughput", "--unit", "tok/s", "--runs", "4", "--seed", "1",
                "--command", _logging_command(log), "--parse", r"throughput: (\d+)", "--condition", "concurrency=64",
                "--root", seed_kb)
    assert result.code == 0, result.err
    dry = kb("measure", KNOB, "--metric", "x", "--runs", "4", "--seed", "1", "--command", "true", "--dry-run",
             "--root", seed_kb)
    planned = [line.split(": ", 1)[1].split(" ", 1)[0] for line in dry.out.splitlines()[1:]]
    assert log.read_text().split() == [value.split("=")[1] for value in planned]  # the order --dry-run showed
    assert f"measured output throughput, {NAME}=512 vs 256" in result.out and "+12.9%" in result.out
    assert result.err.count("kb measure: ") == 10 and "left" in result.err  # one line per run, with the time left
    recorded = _measurements(seed_kb)[-1]
    assert recorded["runs"] == [2720] * 4 and recorded["baseline_runs"] == [2410] * 4
    assert (recorded["setting"], recorded["baseline_setting"], recorded["source"]) == (512, 256, "kb measure")
    assert recorded["conditions"] == {"concurrency": 64} and recorded["unit"] == "tok/s"
    assert recorded["host"] and recorded["software"] and recorded["date"] and "throughput" in recorded["command"]


def test_without_a_metric_it_times_the_command_and_lower_is_better(kb, seed_kb):
    result = kb("measure", KNOB, "--metric", "wall time", "--runs", "3", "--warmup", "0", "--command",
                f"[ \"${NAME}\" = 512 ] || sleep 0.2", "--root", seed_kb)
    assert result.code == 0, result.err
    recorded = _measurements(seed_kb)[-1]
    assert recorded["unit"] == "s" and recorded["higher_is_better"] is False
    assert min(recorded["baseline_runs"]) > max(recorded["runs"])
    assert "−" in result.out.splitlines()[1]  # the wall time went down: a gain, said in the metric's direction


@pytest.mark.parametrize("value", ["a b", "it's", "$(touch pwned)", "--x"])
def test_value_in_the_command_is_one_shell_word_and_the_environment_holds_it(kb, seed_kb, tmp_path, value):
    seen = tmp_path / "seen"
    command = f"printf '%s|%s\\n' {{value}} \"${NAME}\" >> {shlex.quote(str(seen))}"
    result = kb("measure", KNOB, "--metric", "wall time", "--runs", "1", "--warmup", "0", f"--candidate={value}",
                "--command", command, "--root", seed_kb)
    assert result.code == 0, result.err
    assert f"{value}|{value}" in seen.read_text().splitlines() and not (seed_kb / "pwned").exists()


@pytest.mark.parametrize("args, words", [
    (["--command", f"[ \"${NAME}\" = 256 ]"], "the command exited with 1 in run 2 of 4 (warm-up, candidate"),
    (["--command", "echo nothing here", "--parse", r"throughput: (\d+)"], "matches nothing"),
    (["--command", "echo 'throughput: lots'", "--parse", r"throughput: (\w+)"], "'lots', not a measured number"),
    (["--command", "echo '{\"a\": {\"b\": 1}}'", "--json", "a.c"], "has no a.c (no 'c')"),
    (["--command", "echo not json", "--json", "a"], "is not JSON"),
    (["--command", "echo '{\"a\": true}'", "--json", "a"], "True, not a measured number"),
    (["--command", "echo '{\"a\": 1e400}'", "--json", "a"], "beyond 1e+15 in size"),
    (["--command", "python3 -c \"print('{\\\"a\\\": ' + '9' * 5001 + '}')\"", "--json", "a"],
     "(5,001 characters), beyond 1e+15"),
    (["--command", "echo 'throughput: 2e16'", "--parse", r"throughput: (\S+)"], "beyond 1e+15 in size"),
    (["--command", "echo '{\"a\": \"nan\"}'", "--json", "a"], "'nan', not a measured number"),
])
def test_a_run_that_fails_or_a_metric_it_cannot_read_stops_it_and_writes_nothing(kb, seed_kb, args, words):
    before = (seed_kb / SEED_KNOB).read_bytes()
    result = kb("measure", KNOB, "--metric", "m", "--runs", "1", *args, "--root", seed_kb)
    assert result.code == 2 and words in result.err and "nothing was written" in result.err, result.err
    assert result.err.count("\n") <= 2 + result.err.count("kb measure: ")
    assert (seed_kb / SEED_KNOB).read_bytes() == before


def test_what_to_compare_must_be_two_values(kb, seed_kb):
    edit(seed_kb / SEED_KNOB, "\ndefault: 256\n", "\n")
    result = kb("measure", KNOB, "--metric", "m", "--command", "true", "--root", seed_kb)
    assert result.code == 2 and "records no default" in result.err and "--baseline VALUE" in result.err
    result = kb("measure", KNOB, "--metric", "m", "--command", "true", "--baseline", "512", "--root", seed_kb)
    assert result.code == 2 and "nothing to compare" in result.err
    assert kb("measure", "no-such-knob", "--metric", "m", "--command", "true", "--root", seed_kb).code == 2
    assert kb("measure", KNOB, "--metric", "m", "--command", "true", "--parse", "no group", "--root",
              seed_kb).code == 2


def test_an_interrupt_writes_nothing_and_says_how_many_runs_were_done(seed_kb, tmp_path):
    before = (seed_kb / SEED_KNOB).read_bytes()
    process = subprocess.Popen(
        [sys.executable, "-m", "incident_kb.cli", "measure", KNOB, "--metric", "wall time", "--runs", "20",
         "--command", "sleep 0.5", "--root", str(seed_kb)],
        stderr=subprocess.PIPE, text=True, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
        preexec_fn=interruptible)
    assert process.stderr is not None
    # The first run is done; the rest take 20 s, so the interrupt lands among them even when this
    # process reads the line late. (Runs that saw exit 0, every run done, were a suite started in the
    # background, SIGINT ignored in kb's process: `interruptible` gives it a terminal's.)
    first = process.stderr.readline()
    assert first.startswith("kb measure: 1/42"), first
    time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    rest = process.stderr.read()
    assert process.wait(timeout=30) == 2
    assert "interrupted after" in rest and "of 42 runs; nothing was written" in rest, rest
    assert (seed_kb / SEED_KNOB).read_bytes() == before
