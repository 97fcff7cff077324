"""Paths read from a configuration file are held to the repository (issue 30): `kb render` without
`--out` writes where zensical.toml's `docs_dir` and `theme.custom_dir` say only when that is inside
the repository (by `..`, an absolute path, or a link that leads out: one line, exit 2, nothing
written outside); a folder inside, also through a link that stays inside, is written as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..site_support import zensical_repository

pytestmark = pytest.mark.usefixtures("git_env")


@pytest.fixture
def zensical_kb(kb, tmp_path) -> Path:
    return zensical_repository(tmp_path / "team-kb", kb)


def configure(root: Path, key: str, value: str) -> None:
    config = root / "zensical.toml"
    default = {"docs_dir": "kb-site/docs", "custom_dir": "kb-site/theme"}[key]
    config.write_text(config.read_text().replace(f'{key} = "{default}"', f"{key} = {json.dumps(value)}"))


def outside_values(tmp_path: Path) -> list[str]:
    return ["../outside", str(tmp_path / "outside"), "kb-site/../../outside", "linked-out/site"]


@pytest.mark.parametrize("key, line", [("docs_dir", 10), ("custom_dir", 26)])
@pytest.mark.parametrize("which", range(4))
def test_a_configured_folder_outside_the_repository_receives_nothing(kb, zensical_kb, tmp_path, key, line, which):
    outside = tmp_path / "outside"
    outside.mkdir()
    (zensical_kb / "linked-out").symlink_to(outside, target_is_directory=True)
    value = outside_values(tmp_path)[which]
    configure(zensical_kb, key, value)
    result = kb("render", "--root", zensical_kb)
    assert result.code == 2 and result.err.count("\n") == 1 and "Traceback" not in result.err, result.err
    assert result.err.startswith(f"kb: zensical.toml:{line}: {key} in zensical.toml is {value}, ")
    assert "kb render writes only inside the repository" in result.err
    assert list(outside.iterdir()) == []


def test_a_theme_folder_inside_also_through_a_link_that_stays_inside_is_written(kb, zensical_kb):
    (zensical_kb / "build/site").mkdir(parents=True)
    (zensical_kb / "linked-in").symlink_to("build/site", target_is_directory=True)
    configure(zensical_kb, "custom_dir", "linked-in/out")
    result = kb("render", "--root", zensical_kb)
    assert result.code == 0, result.err
    assert any((zensical_kb / "build/site/out").iterdir())

