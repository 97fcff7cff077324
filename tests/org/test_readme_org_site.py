"""README "One site for many teams" as written: its org mkdocs.yml builds strict once its entries name
real knowledge bases (a folder, and a local git repository for the URL), `kb org check` runs on it,
its workflows build on a schedule and on the dispatch each team's push sends, and ownership shows
where it says."""

from __future__ import annotations

import re

import pytest
import yaml

from ..conftest import REPO
from ..org_support import committed, write_payments, write_platform
from ..site_support import try_build_site

_SECTION = re.compile(r"^## One site for many teams\n(.*?)^## ", re.DOTALL | re.MULTILINE)
_URL = "https://git.example.com/platform/kb.git"


def _blocks() -> list[str]:
    section = _SECTION.search((REPO / "README.md").read_text())
    assert section is not None
    return re.findall(r"^```yaml\n(.*?)^```", section.group(1), re.DOTALL | re.MULTILINE)


def _readme_org(tmp_path):
    """The README's org repository beside a payments folder (its records owned) and platform's repository."""
    payments = write_payments(tmp_path / "payments")
    knob = payments / "knobs/db-pool-size.yaml"
    knob.write_text(knob.read_text() + "owners: [payments-oncall]\n")
    platform = write_platform(tmp_path / "platform-src")
    committed(platform)
    config = _blocks()[0]
    assert _URL in config
    (tmp_path / "org/docs").mkdir(parents=True)
    (tmp_path / "org/mkdocs.yml").write_text(config.replace(_URL, f"file://{platform}"))
    return tmp_path / "org/mkdocs.yml"


def test_the_org_check_runs_on_the_readmes_configuration(kb, tmp_path, user_cache):
    result = kb("org", "check", "--config", _readme_org(tmp_path), "--format", "github")
    assert result.code == 1, result.out  # the payments knob is reclaimable: platform refuted its hypothesis
    assert "::error file=payments/knobs/db-pool-size.yaml,line=5,col=1,title=reclaimable-knob::" in result.out
    assert "unreadable-kb" not in result.out


@pytest.mark.slow
def test_the_readmes_org_site_builds_strict_and_shows_ownership(tmp_path, user_cache):
    failure, logged = try_build_site(_readme_org(tmp_path).parent, tmp_path / "site", strict=True)
    assert failure is None, logged
    home = (tmp_path / "site/index.html").read_text()
    assert "<td>payments-oncall</td>" in home and "<td>none recorded</td>" in home  # platform owns nothing
    assert "payments-oncall" in (tmp_path / "site/payments/knobs/db-pool-size/index.html").read_text()
    assert (tmp_path / "site/payments/feed.xml").is_file()


def test_the_workflows_build_on_a_schedule_and_on_each_teams_push():
    org, team = (yaml.safe_load(block) for block in _blocks()[1:3])
    on = org[True]  # YAML 1.1 reads the key `on` as true
    assert on["schedule"][0]["cron"] and on["repository_dispatch"] == {"types": ["kb-changed"]}
    steps = org["jobs"]["site"]["steps"]
    runs = [step.get("run", "") for step in steps]
    assert runs.index("kb org check --format github") < runs.index("mkdocs build --strict")
    assert steps[runs.index("mkdocs build --strict")]["if"] == "${{ !cancelled() }}"  # built when errors are found
    (told,) = [step["run"] for step in team["jobs"]["tell-the-org-site"]["steps"]]
    assert "/dispatches" in told and "event_type=kb-changed" in told and "push" in team[True]
