"""Markup is not the value (issue 30): a YAML anchor or core tag before a value is left out, an alias
or another tag is a value kb cannot know ("cannot read", never a false drift), a value with commas
and colons is one value, and name/value pairs in HCL and JSON are read in each layout (value before
name, `Name`/`Value`, JSON with escaped quotes inside a string, the object opened on the name's line)."""

from __future__ import annotations

import pytest

from incident_kb.deploy.forms import read_settings

from .test_deploy_files import check, knob

N = "SEARCH_TIMEOUT_MS"
MALLOC = "MALLOC_CONF"
CONF = "background_thread:true,thp:always"

READ = [
    # (what, name, text, line, value)
    ("anchor", N, f"{N}: &pool 20\n", 1, "20"),
    ("anchor, quoted value", N, f"{N}: &pool \"20\"\n", 1, "20"),
    ("short core tag", N, f"{N}: !!str 20\n", 1, "20"),
    ("core tag, quoted", N, f"{N}: !!int \"20\"\n", 1, "20"),
    ("verbatim core tag", N, f"{N}: !<tag:yaml.org,2002:str> 20\n", 1, "20"),
    ("non-specific tag", N, f"{N}: ! 20\n", 1, "20"),
    ("anchor then tag", N, f"{N}: &a !!str 20\n", 1, "20"),
    ("tag then anchor", N, f"{N}: !!str &a 20\n", 1, "20"),
    ("Kubernetes value with an anchor", N, f"env:\n  - name: {N}\n    value: &v \"20\"\n", 3, "20"),
    ("Kubernetes flow mapping with a tag", N, f"env:\n  - {{name: {N}, value: !!str 20}}\n", 2, "20"),
    ("nested YAML key with an anchor", "search.timeout", "search:\n  timeout: &t 20\n", 2, "20"),
    ("commas and colons, shell", MALLOC, f"export {MALLOC}={CONF}\n", 1, CONF),
    ("commas and colons, .env", MALLOC, f"{MALLOC}={CONF}\n", 1, CONF),
    ("commas and colons, systemd", MALLOC, f"Environment={MALLOC}={CONF}\n", 1, CONF),
    ("commas and colons, compose list", MALLOC, f"environment:\n  - {MALLOC}={CONF}\n", 2, CONF),
    ("commas and colons, YAML key", MALLOC, f"env:\n  {MALLOC}: {CONF}\n", 2, CONF),
    ("commas and colons, Kubernetes", MALLOC, f"env:\n  - name: {MALLOC}\n    value: {CONF}\n", 3, CONF),
    ("JSON line's trailing comma", N, f'{{\n  "{N}": 20,\n  "X": 1\n}}\n', 2, "20"),
    ("HCL map in a flow object", N, f"env = {{ {N} = 20, B = 1 }}\n", 1, "20"),
    ("flow list item", N, f"args: [{N}=20, B=1]\n", 1, "20"),
    ("HCL pair, value before name", N, f'environment = [{{ value = "20", name = "{N}" }}]\n', 1, "20"),
    ("JSON pair, value before name", N, f'[{{"value": "20", "name": "{N}"}}]\n', 1, "20"),
    ("JSON pair, value before name, second object", N,
     f'[{{"name": "A", "value": "1"}}, {{"value": "20", "name": "{N}"}}]\n', 1, "20"),
    ("CloudFormation JSON", N, f'{{"Name": "{N}", "Value": "20"}}\n', 1, "20"),
    ("CloudFormation YAML", N, f"Environment:\n  - Name: {N}\n    Value: 20\n", 3, "20"),
    ("HCL Name/Value", N, f'{{ Name = "{N}", Value = "20" }}\n', 1, "20"),
    ("ECS JSON inside a string", N,
     'container_definitions = "[{\\"environment\\": [{\\"name\\": \\"' + N + '\\", \\"value\\": \\"20\\"}]}]"\n',
     1, "20"),
    ("HCL object opened on the name's line", N, f'environment = [{{ name = "{N}"\n  value = "20" }}]\n', 2, "20"),
    ("JSON object opened on the name's line", N, f'"environment": [{{"name": "{N}",\n  "value": "20"}}]\n', 2, "20"),
]


@pytest.mark.parametrize("what, name, text, line, value", READ, ids=[r[0] for r in READ])
def test_markup_is_not_the_value(what, name, text, line, value):
    found = read_settings(text, name)
    assert [(item.line, item.value) for item in found] == [(line, value)], found


UNKNOWABLE = [
    ("alias", N, f"{N}: *pool\n", 1),
    ("CloudFormation !Ref", N, f"{N}: !Ref Timeout\n", 1),
    ("!ENV", N, f"{N}: !ENV [TIMEOUT, 20]\n", 1),
    ("binary", N, f"{N}: !!binary MjA=\n", 1),
    ("Kubernetes value that is an alias", N, f"env:\n  - name: {N}\n    value: *v\n", 3),
    ("a pair whose value is another object's", N, f'[{{"name": "{N}"}}, {{"name": "B", "value": "20"}}]\n', 1),
    ("valueFrom before the name", N, f'[{{"valueFrom": "arn:x", "name": "{N}"}}]\n', 1),
]


@pytest.mark.parametrize("what, name, text, line", UNKNOWABLE, ids=[r[0] for r in UNKNOWABLE])
def test_a_value_kb_cannot_know_is_read_as_none_never_as_the_markup(what, name, text, line):
    found = read_settings(text, name)
    assert [(item.line, item.value) for item in found] == [(line, None)], found


@pytest.mark.parametrize("text", [
    f"{N}: &pool 20\n", f"{N}: !!str 20\n", f"env:\n  - name: {N}\n    value: &v \"20\"\n",
    f'[{{"value": "20", "name": "{N}"}}]\n', f'{{ Name = "{N}", Value = "20" }}\n',
])
def test_an_active_knob_set_with_markup_is_no_false_alarm_and_a_reverted_one_drifts(kb, empty_kb, text):
    files = {"deploy/app.yaml": text}
    assert check(kb, empty_kb, files, knob("active", paths=("deploy/app.yaml",))) == []
    found = check(kb, empty_kb, files, knob("reverted", paths=("deploy/app.yaml",)))
    assert [f["code"] for f in found] == ["knob-drift"]


def test_a_value_with_commas_and_colons_is_no_false_drift(kb, empty_kb):
    record = knob("active", paths=("deploy/app.sh",)).replace("name: SEARCH_TIMEOUT_MS", f"name: {MALLOC}") \
        .replace("value: 20\n", f"value: '{CONF}'\n", 1)
    assert check(kb, empty_kb, {"deploy/app.sh": f"export {MALLOC}={CONF}\n"}, record) == []


def test_an_alias_is_said_unreadable_never_passed_in_silence(kb, empty_kb):
    found = check(kb, empty_kb, {"deploy/app.yaml": f"base: &t 20\n{N}: *t\n"},
                  knob("reverted", paths=("deploy/app.yaml",)))
    assert [(f["code"], f["line"]) for f in found] == [("unreadable-setting", 2)]
    assert f"cannot read {N} in deploy/app.yaml:2" in found[0]["message"]
