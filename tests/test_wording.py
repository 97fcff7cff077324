"""Messages say things right: "an incident", never "a incident" (the article follows the word, in
every message that names a kind or a type), and an error inside MkDocs names what MkDocs has (the
plugin's `root` option), never a --root flag it does not have."""

from __future__ import annotations

import re

import pytest

from incident_kb.wording import article

from .conftest import REPO


def test_the_article_follows_the_word():
    assert [article(word) for word in ("incident", "knob", "int", "float", "object", "list", "")] == \
        ["an incident", "a knob", "an int", "a float", "an object", "a list", "a "]


def test_no_message_puts_a_fixed_article_before_a_word_it_does_not_know():
    """A literal 'a ' before a placeholder in an f-string is 'a incident' waiting to happen (a YAML tag,
    '!!int', is said 'a !!int' whatever it is)."""
    wrong = []
    for path in sorted((REPO / "generator").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\b[aA]n? \{(?!_short\()", line) and ('f"' in line or "f'" in line):
                wrong.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not wrong, "use wording.article():\n" + "\n".join(wrong)


def test_an_incident_id_and_an_incident_record_are_said_with_an(kb, empty_kb):
    result = kb("new", "incident", "Not_A_Slug", "--title", "t", "--root", empty_kb)
    assert result.code == 2 and result.err.startswith("kb: 'Not_A_Slug' is not an incident id;")
    knob = kb("new", "knob", "Not_A_Slug", "--name", "N", "--summary", "s", "--value", "1", "--root", empty_kb)
    assert knob.err.startswith("kb: 'Not_A_Slug' is not a knob id;")
    (empty_kb / "incidents/listed.yaml").write_text("- one\n- two\n")
    (empty_kb / "knobs/odd.yaml").write_text("!!int 5\n")
    checked = kb("check", "--root", empty_kb)
    assert "an incident record is a mapping of fields (e.g. 'id: my-incident'), found a list" in checked.out
    assert "a knob record is a mapping of fields" in checked.out and " a incident" not in checked.out


def test_the_plugin_names_its_root_option_not_a_flag_mkdocs_lacks(tmp_path):
    from mkdocs.exceptions import PluginError

    from incident_kb.website.mkdocs.glue import check as _check

    (tmp_path / "docs").mkdir()
    with pytest.raises(PluginError) as raised:
        _check(tmp_path)
    message = str(raised.value)
    assert "--root" not in message
    assert message == (f"incident-kb: {tmp_path} has no knobs/ or incidents/ folder; set the incident-kb plugin's "
                       "`root` option in mkdocs.yml to the folder that holds knobs/ and incidents/ (relative to "
                       "mkdocs.yml)")


@pytest.mark.usefixtures("git_env")
def test_a_command_a_finding_suggests_runs_as_printed_with_any_value(kb, seed_kb):
    """The value in a suggested `kb set` is shell-quoted: pasted, it records that value again."""
    from .rules.test_rules import _seed_mid_investigation
    from .rules.test_story_rules import INCIDENT, KNOB, codes

    _seed_mid_investigation(seed_kb)
    assert kb("restore", KNOB, "--date", "2026-11-05", "--root", seed_kb).code == 0
    assert kb("set", KNOB, "fast mode; rm -rf x", "--incident", INCIDENT, "--hypothesis", "client-proxy-fault",
              "--date", "2026-11-05", "--root", seed_kb).code in (0, 1)
    assert kb("refute", INCIDENT, "client-proxy-fault", "--root", seed_kb).code in (0, 1)
    message = codes(kb, seed_kb)[1]["changed-under-refuted"]["message"]
    assert f"`kb set {KNOB} 'fast mode; rm -rf x' --note 'why it stays'`" in message


def test_a_path_kb_prints_shows_no_control_character(kb, seed_kb, tmp_path):
    out = tmp_path / "site\x1b[2J\u202eevil\nnext"
    result = kb("render", "--root", seed_kb, "--out", out)
    assert result.code == 0, result.err
    assert result.out.count("\n") == 1 and "\x1b" not in result.out and "\u202e" not in result.out
    assert "site\\x1b[2J\\u202eevil\\nnext" in result.out
