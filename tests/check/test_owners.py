"""Who gets told: owners on every finding of `--format github` (the step summary's "Who to tell")
and `--format gitlab` (each Code Quality description), and PR mode's exoneration notice."""

from __future__ import annotations

import json

import pytest

from ..gitrepo import GitRepo
from ..story import DEADLOCK, INCIDENT, KNOB, PERF_PLAN, WHEN, step, story_until

pytestmark = pytest.mark.usefixtures("git_env")

GITHUB_CODEOWNERS = "* @everyone\n/docs/design/ @architects @perf-team\n/docs/design/DSV4_PD_DEADLOCK_ISSUE.md @sre\n"
GITLAB_CODEOWNERS = """\
# GitLab: sections combine; within one the last match wins
[Design] @architects
/docs/design/
/docs/design/DSV4_PD_DEADLOCK_ISSUE.md @sre
^[Performance][1]
*PERF*.md @perf-team
!docs/design/DSV4_PD_DEADLOCK_ISSUE.md
"""


def _with_owners(root, codeowners_path: str | None, codeowners: str = GITHUB_CODEOWNERS) -> None:
    knob = root / f"knobs/{KNOB}.yaml"
    knob.write_text(knob.read_text().replace("applies_to:\n", "owners: ['@decode-team']\napplies_to:\n"))
    if codeowners_path is not None:
        (root / codeowners_path).parent.mkdir(parents=True, exist_ok=True)
        (root / codeowners_path).write_text(codeowners)


def _gitlab_descriptions(kb, root) -> dict[tuple[str, int], str]:
    result = kb("check", "--root", root, "--format", "gitlab")
    return {(i["location"]["path"], i["location"]["lines"]["begin"]): i["description"] for i in json.loads(result.out)}


@pytest.mark.parametrize("where", [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"])
def test_gitlab_descriptions_name_the_docs_owners_github_syntax(kb, tmp_path, where):
    root = tmp_path / "kb"
    story_until(root, 4)
    _with_owners(root, where)
    found = _gitlab_descriptions(kb, root)
    assert found[(PERF_PLAN, 7)].endswith("; owners: @architects, @perf-team")
    assert found[(DEADLOCK, 2)].endswith("; owners: @sre")
    assert found[(DEADLOCK, 2)].startswith("this doc refers to")


def test_gitlab_descriptions_gitlab_sections(kb, tmp_path):
    root = tmp_path / "kb"
    story_until(root, 4)
    _with_owners(root, ".github/CODEOWNERS", GITLAB_CODEOWNERS)
    found = _gitlab_descriptions(kb, root)
    assert found[(PERF_PLAN, 7)].endswith("; owners: @architects, @perf-team")
    assert found[(DEADLOCK, 2)].endswith("; owners: @sre")  # excluded from Performance


def test_a_doc_owned_by_nobody_is_said_so(kb, tmp_path):
    root = tmp_path / "kb"
    story_until(root, 4)
    found = _gitlab_descriptions(kb, root)
    assert found[(PERF_PLAN, 7)].endswith("; owned by nobody: no CODEOWNERS file")
    _with_owners(root, "CODEOWNERS", "/docs/design/DSV4_PD_DEADLOCK_ISSUE.md @sre\n/src/ @devs\n")
    found = _gitlab_descriptions(kb, root)
    assert found[(PERF_PLAN, 7)].endswith("; owned by nobody: no line of CODEOWNERS gives it an owner")
    assert found[(DEADLOCK, 2)].endswith("; owners: @sre")


def test_a_knobs_findings_go_to_its_owners(kb, seed_kb, tmp_path):
    from ..conftest import break_seed_story

    break_seed_story(seed_kb)
    _with_owners(seed_kb, "CODEOWNERS", "* @everyone\n")
    issues = json.loads(kb("check", "--root", seed_kb, "--format", "gitlab").out)
    knob_issues = [i for i in issues if i["location"]["path"] == f"knobs/{KNOB}.yaml"]
    assert knob_issues and all(i["description"].endswith("; owners: @decode-team") for i in knob_issues)


def test_step_summary_says_who_to_tell(kb, tmp_path, monkeypatch):
    root = tmp_path / "kb"
    story_until(root, 4)
    _with_owners(root, "CODEOWNERS")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert kb("check", "--root", root, "--format", "github").code == 1
    text = summary.read_text()
    who = text[text.index("### Who to tell\n"):]
    assert who == f"""### Who to tell

- `@architects`:
  - `{PERF_PLAN}:7` `stale-doc`
  - `{PERF_PLAN}:8` `stale-doc`
- `@perf-team`:
  - `{PERF_PLAN}:7` `stale-doc`
  - `{PERF_PLAN}:8` `stale-doc`
- `@sre`:
  - `{DEADLOCK}:2` `stale-doc`
  - `{DEADLOCK}:7` `stale-doc`

"""


def test_no_findings_no_who_to_tell(kb, tmp_path, monkeypatch):
    root = tmp_path / "kb"
    story_until(root, 5)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert kb("check", "--root", root, "--format", "github").code == 0
    assert "Who to tell" not in summary.read_text()


def _refute_as_a_pull_request(tmp_path, codeowners: str | None = GITHUB_CODEOWNERS):
    """The seed story up to the hang (docs blaming the knob), then the refute as a branch."""
    root = tmp_path / "kb"
    repo, ids = story_until(root, 2)
    if codeowners is not None:
        repo.write("CODEOWNERS", codeowners)
        repo.commit("Owners", WHEN[2])
    base = repo.git("rev-parse", "--short=7", "HEAD")
    repo.git("checkout", "-q", "-b", "refute")
    step(repo, 3)
    return repo, root, base


def test_a_refute_names_the_docs_that_still_blame_the_knob(kb, tmp_path, monkeypatch):
    _, root, base = _refute_as_a_pull_request(tmp_path)
    result = kb("check", "--root", root, "--base", base)
    notices = [line for line in result.out.splitlines() if line.startswith("cleared: ")]
    assert notices == [
        f"cleared: {KNOB} (hypothesis 'target-ctas-causes-hang' of incident '{INCIDENT}' no longer stands); "
        f"these still blame it: {PERF_PLAN} (owners: @architects, @perf-team), {DEADLOCK} (owners: @sre); "
        "tell their owners"]
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    kb("check", "--root", root, "--base", base, "--format", "github")
    text = summary.read_text()
    assert "cleared&#58; sglang-sm120-mma-target-ctas" in text and "these still blame it" in text


def test_a_refute_with_its_docs_corrected_blames_nothing_and_owners_unknown_are_said(kb, tmp_path):
    repo, root, base = _refute_as_a_pull_request(tmp_path, codeowners=None)
    result = kb("check", "--root", root, "--base", base)
    assert (f"these still blame it: {PERF_PLAN} (owned by nobody: no CODEOWNERS file), {DEADLOCK} "
            "(owned by nobody: no CODEOWNERS file)") in result.out
    step(repo, 5)  # the same branch corrects both docs
    result = kb("check", "--root", root, "--base", base)
    assert f"cleared: {KNOB} (hypothesis 'target-ctas-causes-hang' of incident '{INCIDENT}' no longer stands); " \
           "nothing still blames it" in result.out


def test_no_refute_no_notice(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 4)
    # the hypothesis did not exist at the base / was already refuted there: nothing is cleared by this change
    for base in (ids[1], ids[3]):
        assert "cleared:" not in kb("check", "--root", root, "--base", base).out
    result = kb("check", "--root", root, "--base", ids[2], "--format", "json")
    assert "cleared" not in result.out
    json.loads(result.out)  # the notice never enters a machine format


def _story_in_a_subfolder(top, sub: str = "services/payments", last: int = 4):
    """The story's knowledge base in a subfolder of a larger repository (a monorepo), as it is built."""
    GitRepo(top)
    repo = GitRepo(top / sub, init=False)
    (top / sub).mkdir(parents=True)
    for number in range(1, last + 1):
        step(repo, number)
    return repo


MONOREPO_CODEOWNERS = ("* @everyone\n/services/payments/docs/design/ @architects @perf-team\n"
                       "/services/payments/docs/design/DSV4_PD_DEADLOCK_ISSUE.md @sre\n")


@pytest.mark.parametrize("where", [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"])
def test_a_knowledge_base_in_a_subfolder_reads_the_repositorys_codeowners(kb, tmp_path, where):
    """GitHub and GitLab read CODEOWNERS at the repository's top, its patterns from that top."""
    top = tmp_path / "mono"
    _story_in_a_subfolder(top)
    (top / where).parent.mkdir(parents=True, exist_ok=True)
    (top / where).write_text(MONOREPO_CODEOWNERS)
    found = _gitlab_descriptions(kb, top / "services/payments")
    assert found[(PERF_PLAN, 7)].endswith("; owners: @architects, @perf-team")
    assert found[(DEADLOCK, 2)].endswith("; owners: @sre")
    (top / where).write_text(MONOREPO_CODEOWNERS.replace("@sre", "@oncall"))  # the cache sees the top's file
    assert _gitlab_descriptions(kb, top / "services/payments")[(DEADLOCK, 2)].endswith("; owners: @oncall")


def test_the_tops_codeowners_anchors_patterns_at_the_top_and_names_itself(kb, tmp_path):
    top = tmp_path / "mono"
    _story_in_a_subfolder(top, "teams/payments/kb")
    (top / ".github").mkdir()
    (top / ".github/CODEOWNERS").write_text("/docs/design/ @wrong-team\n*PERF*.md @perf-team\n")
    found = _gitlab_descriptions(kb, top / "teams/payments/kb")
    assert found[(PERF_PLAN, 7)].endswith("; owners: @perf-team")  # unanchored: any depth
    assert found[(DEADLOCK, 2)].endswith(  # /docs/design/ is the top's docs, not the knowledge base's
        "; owned by nobody: no line of ../../../.github/CODEOWNERS gives it an owner")


def test_the_knowledge_bases_own_codeowners_comes_first(kb, tmp_path):
    top = tmp_path / "mono"
    _story_in_a_subfolder(top)
    (top / "CODEOWNERS").write_text("* @top-owners\n")
    (top / "services/payments/CODEOWNERS").write_text(GITHUB_CODEOWNERS)
    found = _gitlab_descriptions(kb, top / "services/payments")
    assert found[(DEADLOCK, 2)].endswith("; owners: @sre")


@pytest.mark.parametrize("monorepo", [False, True])
def test_the_pre_commit_check_names_owners_too(kb, tmp_path, monkeypatch, monorepo):
    """`--staged --format gitlab/github`: the commit being made (step 4 staged on step 3) and its
    owners: its own CODEOWNERS, or for a knowledge base in a subfolder the repository top's."""
    if monorepo:
        top = tmp_path / "mono"
        repo = _story_in_a_subfolder(top, last=3)
        (top / "CODEOWNERS").write_text(MONOREPO_CODEOWNERS)
        root = top / "services/payments"
    else:
        root = tmp_path / "kb"
        repo, _ = story_until(root, 3)
        _with_owners(root, "CODEOWNERS")
    repo.commit("Owners", WHEN[3])
    step(repo, 4)
    repo.git("reset", "-q", "--soft", "HEAD~1")  # step 4 staged, not committed
    issues = json.loads(kb("check", "--root", root, "--staged", "--format", "gitlab").out)
    found = {(i["location"]["path"], i["location"]["lines"]["begin"]): i["description"] for i in issues}
    assert found[(PERF_PLAN, 7)].endswith("; owners: @architects, @perf-team")
    assert found[(DEADLOCK, 2)].endswith("; owners: @sre")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert kb("check", "--root", root, "--staged", "--format", "github").code == 1
    assert "### Who to tell\n\n- `@architects`:\n" in summary.read_text()


def test_the_pre_commit_check_takes_no_owners_from_an_unstaged_codeowners(kb, tmp_path):
    """--staged judges the index: a CODEOWNERS in the work tree that the commit does not hold owns nothing."""
    root = tmp_path / "kb"
    repo, _ = story_until(root, 3)
    step(repo, 4)
    repo.git("reset", "-q", "--soft", "HEAD~1")  # step 4 staged, not committed
    (root / "CODEOWNERS").write_text(GITHUB_CODEOWNERS)  # untracked
    issues = json.loads(kb("check", "--root", root, "--staged", "--format", "gitlab").out)
    found = {(i["location"]["path"], i["location"]["lines"]["begin"]): i["description"] for i in issues}
    assert found[(DEADLOCK, 2)].endswith("; owned by nobody: no CODEOWNERS file")
