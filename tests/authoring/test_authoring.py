"""Each authoring command on records full of comments: the record's diff and the command's output
against a golden file (only the intended lines change), and what each command refuses."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from ..conftest import SEED
from ..golden import assert_golden, file_diff, snapshot

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
KNOB = "sglang-sm120-mma-target-ctas"
INCIDENT = "multi-round-harness-hang"
HYP = "target-ctas-causes-hang"
PROXY = "client-proxy-fault"


@pytest.fixture
def commented_kb(seed_kb: Path) -> Path:
    """The seed's docs and deploy files, with hand-written records full of comments (mid-investigation)."""
    for folder in ("knobs", "incidents"):
        shutil.rmtree(seed_kb / folder)
        shutil.copytree(FIXTURES / "commented" / folder, seed_kb / folder)
    return seed_kb


def run_golden(kb, root: Path, name: str, command: str, setup: tuple[str, ...] = ()) -> None:
    """Run the setup commands, then `command`; its output and the diff it made go to a golden file."""
    for step in setup:
        result = kb(*shlex.split(step), "--root", root)
        assert result.code == 0, (step, result.out, result.err)
    before = snapshot(root)
    result = kb(*shlex.split(command), "--root", root)
    text = f"$ kb {command}\n{result.out}{result.err}exit {result.code}\n\n{file_diff(before, snapshot(root))}"
    assert_golden(f"authoring/{name}.txt", text)


CASES = {
    "hypothesis-add": f"hypothesis add {INCIDENT} proxy-buffering --statement 'The router buffers streamed "
                      f"responses until the client proxy times out.' --suspect-knob {KNOB}",
    "evidence-add": f"evidence add {INCIDENT} {HYP} --kind experiment --stance against --date 2026-11-05 "
                    "--text 'Direct connections bypassing the proxy did not hang; the hang still occurred "
                    "through the proxy after the revert.'",
    "evidence-add-first": f"evidence add {INCIDENT} {PROXY} --kind observation --stance for --date 2026-11-05 "
                          "--text 'The hang only manifested through the proxy.'",
    "refute": f"refute {INCIDENT} {HYP}",
    "confirm-resolve": f"confirm {INCIDENT} {PROXY} --resolve --date 2026-11-07 --summary 'One of the client-side "
                       "proxies was acting up, dropping requests after several rounds.'",
    "confirm": f"confirm {INCIDENT} {PROXY}",
    "revert": f"revert {KNOB} --incident {INCIDENT} --hypothesis {HYP} --date 2026-11-04 --note 'Suspected of "
              "causing the hang because it appeared around the time it was deployed.'",
    "measurement-add": f"measurement add {KNOB} --metric 'time to first token' --baseline 410 --value 395 --unit ms "
                       "--lower-is-better --condition concurrency=64 --condition 'mode=prefill-decode' "
                       "--date 2026-11-02 --evidence docs/design/DSV4_DECODE_PERF_PLAN.md",
    "timeline-add": f"timeline add {INCIDENT} --at 2026-11-05T20:25:00 --event 'Decode-only restart validated "
                    "with 24/24 successful multi-round rounds.'",
    "follow-up-add": f"follow-up add {INCIDENT} --action 'Record which proxy failed and how.' --owner sre",
    "lesson-add": f"lesson add {INCIDENT} 'A revert is a hypothesis test, not a fix.'",
    "fmt": "fmt",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_command_changes_only_what_it_means_to(kb, commented_kb, name):
    run_golden(kb, commented_kb, name, CASES[name])


def test_restore_after_a_revert(kb, commented_kb):
    revert = CASES["revert"]
    run_golden(kb, commented_kb, "restore", f"restore {KNOB} --date 2026-11-07 --note 'The hang was a proxy.'",
               setup=(revert, f"refute {INCIDENT} {HYP}"))


def test_new_records(kb, empty_kb):
    shutil.copytree(SEED / "deploy", empty_kb / "deploy")
    run_golden(kb, empty_kb, "new-knob",
               f"new knob {KNOB} --name SGLANG_SM120_MMA_TARGET_CTAS --summary 'Target CTA count for split-K MMA "
               "on sm_120 decode.' --value 512 --kind env --default 256 --tag sm120 --scope model=DeepSeek-V4-Flash "
               "--applies-to deploy/decode.sh --date 2026-11-02 --note 'Deployed after benchmarking.'")
    run_golden(kb, empty_kb, "new-incident",
               f"new incident {INCIDENT} --title 'Multi-round agent harness hangs after several rounds' "
               "--started 2026-11-03 --symptom 'The harness wedges after several rounds.'")


def test_fmt_puts_a_scrambled_record_in_schema_order(kb, commented_kb):
    shutil.copy(FIXTURES / "scrambled-knob.yaml", commented_kb / "knobs" / f"{KNOB}.yaml")
    run_golden(kb, commented_kb, "fmt-scrambled", "fmt")
