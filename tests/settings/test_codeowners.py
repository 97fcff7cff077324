"""CODEOWNERS as GitHub and GitLab read it: which file counts, patterns, the last match, GitLab's
sections (combined across sections, the last match within one, default owners, exclusions)."""

from __future__ import annotations

import pytest

from incident_kb.settings.codeowners import CodeOwners, parse_codeowners, read_codeowners


def owners(text: str, path: str) -> tuple[str, ...]:
    return CodeOwners("CODEOWNERS", parse_codeowners(text)).owners_of(path)


@pytest.mark.parametrize(("pattern", "path", "matches"), [
    ("*", "docs/a.md", True),
    ("*.md", "docs/design/a.md", True),
    ("*.md", "docs/design/a.mdx", False),
    ("/docs/", "docs/design/a.md", True),
    ("/docs/", "other/docs/a.md", False),
    ("docs/", "other/docs/a.md", True),  # a folder anywhere
    ("docs/*", "docs/a.md", True),
    ("docs/*", "docs/design/a.md", False),  # direct children only
    ("docs/*", "x/docs/a.md", False),  # an inner slash anchors
    ("/docs/design", "docs/design/a.md", True),  # a folder owns what lies below it
    ("/docs/design", "docs/designs/a.md", False),
    ("**/design", "x/y/design/a.md", True),
    ("/docs/**/*.md", "docs/a/b/c.md", True),
    ("/docs/**/*.md", "docs/a/b/c.txt", False),
    ("README.md", "sub/README.md", True),
    ("READ?E.md", "README.md", True),
    ("READ?E.md", "READ/E.md", False),
    ("a.md", "xa.md", False),
])
def test_patterns(pattern, path, matches):
    assert owners(f"{pattern} @o\n", path) == (("@o",) if matches else ())


def test_the_last_match_wins_and_an_entry_without_owners_leaves_it_to_nobody():
    text = "* @everyone\n/docs/ @docs-team\n/docs/design/ @design @docs-team\n/docs/design/draft.md\n"
    assert owners(text, "src/x.py") == ("@everyone",)
    assert owners(text, "docs/guide/a.md") == ("@docs-team",)
    assert owners(text, "docs/design/a.md") == ("@design", "@docs-team")
    assert owners(text, "docs/design/draft.md") == ()


def test_comments_and_escapes():
    text = "# a comment\n\\#notes.md @hash  # trailing comment\nmy\\ file.md @space\n"
    assert owners(text, "#notes.md") == ("@hash",)
    assert owners(text, "my file.md") == ("@space",)
    assert owners(text, "notes.md") == ()


def test_gitlab_sections_combine_and_the_last_match_wins_within_one():
    text = """\
* @general
[Documentation] @docs-team
docs/
/docs/design/ @architects
^[Review][2] @reviewers
*.md
!docs/design/legal.md
[documentation]
/docs/guide/ @guides
"""
    assert owners(text, "src/x.py") == ("@general",)
    assert owners(text, "docs/design/a.md") == ("@general", "@architects", "@reviewers")
    assert owners(text, "docs/design/legal.md") == ("@general", "@architects")  # excluded from Review only
    assert owners(text, "docs/guide/a.md") == ("@general", "@guides", "@reviewers")  # same-named sections are one
    assert owners(text, "docs/other.txt") == ("@general", "@docs-team")  # the section's default owners


def test_a_section_header_is_not_a_pattern():
    assert owners("[Docs]\n", "[Docs]") == ()


def test_which_file_counts(tmp_path):
    assert read_codeowners(tmp_path) == CodeOwners()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/CODEOWNERS").write_text("* @third\n")
    assert read_codeowners(tmp_path).owners_of("a") == ("@third",)
    (tmp_path / "CODEOWNERS").write_text("* @second\n")
    assert read_codeowners(tmp_path).owners_of("a") == ("@second",)
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github/CODEOWNERS").write_text("/docs/ @first\n")
    found = read_codeowners(tmp_path)
    assert (found.rel_path, found.owners_of("docs/a.md")) == (".github/CODEOWNERS", ("@first",))
    assert found.owners_of("a") == ()  # the first file found counts alone


def test_an_unreadable_file_is_said(tmp_path):
    (tmp_path / "CODEOWNERS").write_bytes(b"\xff\xfe* @x\n")
    found = read_codeowners(tmp_path)
    assert found.problem == "cannot read CODEOWNERS: it is not UTF-8"
    assert found.owners_of("a") == ()
