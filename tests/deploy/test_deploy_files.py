"""Deploy files beyond NAME=VALUE (issue 21): the common forms are read, a form no reader understands
is a finding (never silence), a reverted knob drifts while any value it was tuned to is still set, and
drift findings sit at the deploy file's line (where the fix goes), naming the record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incident_kb.deploy.forms import read_settings

# ---- the readers -----------------------------------------------------------------------------------

READ = [
    # (what, name, text, line, value)
    ("shell export", "SEARCH_TIMEOUT_MS", "#!/bin/sh\nexport SEARCH_TIMEOUT_MS=20\n", 2, "20"),
    ("shell, double quotes", "SEARCH_TIMEOUT_MS", 'SEARCH_TIMEOUT_MS="20"\n', 1, "20"),
    (".env, single quotes and a comment", "SEARCH_TIMEOUT_MS", "SEARCH_TIMEOUT_MS='20' # tuned\n", 1, "20"),
    ("shell default", "SEARCH_TIMEOUT_MS", "export SEARCH_TIMEOUT_MS=${SEARCH_TIMEOUT_MS:-20}\n", 1, "20"),
    ("systemd", "SEARCH_TIMEOUT_MS", "[Service]\nEnvironment=SEARCH_TIMEOUT_MS=20\n", 2, "20"),
    ("systemd, quoted, among others", "SEARCH_TIMEOUT_MS",
     '[Service]\nEnvironment="A=1" "SEARCH_TIMEOUT_MS=20"\n', 2, "20"),
    ("docker-compose list", "SEARCH_TIMEOUT_MS", "environment:\n  - SEARCH_TIMEOUT_MS=20\n", 2, "20"),
    ("Dockerfile ENV", "SEARCH_TIMEOUT_MS", "FROM x\nENV SEARCH_TIMEOUT_MS 20\n", 2, "20"),
    ("Kubernetes env list", "SEARCH_TIMEOUT_MS",
     "env:\n  - name: OTHER\n    value: '1'\n  - name: SEARCH_TIMEOUT_MS\n    value: \"20\"\n"
     "  - name: LAST\n    value: '2'\n",
     5, "20"),
    ("Kubernetes, value before name", "SEARCH_TIMEOUT_MS",
     "env:\n  - value: \"20\"\n    name: SEARCH_TIMEOUT_MS\n", 2, "20"),
    ("Kubernetes, flow mapping", "SEARCH_TIMEOUT_MS", "env:\n  - {name: SEARCH_TIMEOUT_MS, value: '20'}\n", 2, "20"),
    ("ECS JSON, one line", "SEARCH_TIMEOUT_MS", '[{"name": "SEARCH_TIMEOUT_MS", "value": "20"}]\n', 1, "20"),
    ("ECS JSON, lines", "SEARCH_TIMEOUT_MS",
     '{\n  "environment": [\n    {\n      "name": "SEARCH_TIMEOUT_MS",\n      "value": "20"\n    }\n  ]\n}\n', 5, "20"),
    ("helm values", "SEARCH_TIMEOUT_MS", "search:\n  env:\n    SEARCH_TIMEOUT_MS: \"20\"\n", 3, "20"),
    ("JSON key", "SEARCH_TIMEOUT_MS", '{"SEARCH_TIMEOUT_MS": 20, "X": 1}\n', 1, "20"),
    ("terraform", "SEARCH_TIMEOUT_MS", 'variable "x" {}\nSEARCH_TIMEOUT_MS = "20"\n', 2, "20"),
    ("terraform map", "SEARCH_TIMEOUT_MS", 'environment = {\n  "SEARCH_TIMEOUT_MS" = "20"\n}\n', 2, "20"),
    ("sysctl.conf", "net.ipv4.tcp_congestion_control",
     "net.core.somaxconn = 4096\nnet.ipv4.tcp_congestion_control = bbr\n", 2, "bbr"),
    ("sysctl -w", "net.core.somaxconn", "sysctl -w net.core.somaxconn=4096\n", 1, "4096"),
    ("Ansible sysctl", "net.core.somaxconn", "- sysctl:\n    name: net.core.somaxconn\n    value: '4096'\n", 3, "4096"),
    ("JVM -XX:Name=V", "-XX:MaxGCPauseMillis", 'JAVA_OPTS="-Xms1g -XX:MaxGCPauseMillis=200 -XX:+UseG1GC"\n', 1, "200"),
    ("JVM -XX:+Flag", "-XX:+UseG1GC", 'JAVA_OPTS="-XX:MaxGCPauseMillis=200 -XX:+UseG1GC"\n', 1, "true"),
    ("JVM -XX:-Flag", "-XX:UseG1GC", 'JAVA_OPTS="-XX:-UseG1GC"\n', 1, "false"),
    ("JVM -Xmx", "-Xmx", "exec java -Xms1g -Xmx4g -jar app.jar\n", 1, "4g"),
    ("flag=V", "--max-connections", "exec server --port 80 --max-connections=100\n", 1, "100"),
    ("flag V", "--max-connections", "exec server --max-connections 100 --port 80\n", 1, "100"),
    ("flag alone", "--enable-cache", "exec server --enable-cache --port 80\n", 1, "true"),
    ("flag, next list item", "--max-connections", "args:\n  - --max-connections\n  - \"100\"\n  - --port\n", 2, "100"),
    ("flag, JSON array", "--max-connections", 'args: ["--max-connections", "100"]\n', 1, "100"),
    ("flag, shell continuation", "--max-connections", "exec server \\\n  --max-connections \\\n  100\n", 2, "100"),
    ("dotted key", "spark.sql.shuffle.partitions", "spark.sql.shuffle.partitions: 200\n", 1, "200"),
    ("dotted key as nested YAML", "spark.sql.shuffle.partitions",
     "spark:\n  sql:\n    adaptive: true\n    shuffle:\n      partitions: 200\n", 5, "200"),
    ("nginx directive", "worker_connections", "events {\n    worker_connections 1024;\n}\n", 2, "1024"),
    ("terraform variable", "SEARCH_TIMEOUT_MS",
     'variable "SEARCH_TIMEOUT_MS" {\n  type    = number\n  default = 20\n}\n', 3, "20"),
    ("Hadoop-style XML", "spark.sql.shuffle.partitions",
     "<configuration>\n  <property>\n    <name>spark.sql.shuffle.partitions</name>\n    <value>200</value>\n"
     "  </property>\n</configuration>\n", 4, "200"),
    (".properties", "spark.sql.shuffle.partitions", "spark.master=yarn\nspark.sql.shuffle.partitions: 200\n", 2, "200"),
    ("shell fallback in use", "SEARCH_TIMEOUT_MS", 'exec gateway --timeout "${SEARCH_TIMEOUT_MS:-20}"\n', 1, "20"),
    ("shell default assigned", "SEARCH_TIMEOUT_MS",
     ': "${SEARCH_TIMEOUT_MS:=20}"\nexport SEARCH_TIMEOUT_MS\n', 1, "20"),
    ("shell default, one reading per line", "SEARCH_TIMEOUT_MS",
     "SEARCH_TIMEOUT_MS=${SEARCH_TIMEOUT_MS-20}\n", 1, "20"),
    ("Java system property", "spark.sql.shuffle.partitions",
     'export SPARK_SUBMIT_OPTS="-Xmx2g -Dspark.sql.shuffle.partitions=200"\n', 1, "200"),
    ("dotted key as nested JSON", "spark.sql.shuffle.partitions",
     '{\n  "spark": {\n    "sql": {\n      "adaptive": true,\n      "shuffle": {\n        "partitions": 200\n'
     '      }\n    }\n  }\n}\n', 6, "200"),
    ("dotted key as nested JSON, one line", "server.maxConnections",
     '{"server": {"port": 80, "maxConnections": "100"}, "maxConnections": 5}\n', 1, "100"),
    ("dotted key as nested JSON, dotted parts", "spark.sql.shuffle.partitions",
     '{\n  "spark.sql": {\n    "shuffle.partitions": 200\n  }\n}\n', 3, "200"),
    ("dotted key as nested JSON, in a list", "server.maxConnections",
     '[\n  {"server": {"maxConnections": 100}}\n]\n', 2, "100"),
    ("TOML", "max_connections", "[server]\nmax_connections = 100\n", 2, "100"),
]


@pytest.mark.parametrize("what, name, text, line, value", READ, ids=[r[0] for r in READ])
def test_each_common_form_is_read(what, name, text, line, value):
    found = read_settings(text, name)
    assert [(item.line, item.value) for item in found] == [(line, value)], found


NOT_THERE = [
    ("a longer name", "TIMEOUT_MS", "export SEARCH_UPSTREAM_TIMEOUT_MS=20\n"),
    ("a longer dotted name", "net.core.somaxconn", "net.core.somaxconn_max = 1\n"),
    ("a longer flag", "--max-connections", "exec server --max-connections-per-host 10\n"),
    ("a comment", "SEARCH_TIMEOUT_MS", "# export SEARCH_TIMEOUT_MS=20\nexport A=1  # SEARCH_TIMEOUT_MS=20 was slow\n"),
    ("a reference", "SEARCH_TIMEOUT_MS", 'exec server --timeout "$SEARCH_TIMEOUT_MS" --t2 ${SEARCH_TIMEOUT_MS}\n'),
    ("an echo of itself", "SEARCH_TIMEOUT_MS", 'echo "SEARCH_TIMEOUT_MS=$SEARCH_TIMEOUT_MS"\n'),
    ("unset", "SEARCH_TIMEOUT_MS", "unset SEARCH_TIMEOUT_MS\n"),
    ("export alone", "SEARCH_TIMEOUT_MS", "export SEARCH_TIMEOUT_MS\n"),
    ("another nested key", "spark.sql.shuffle.partitions", "spark:\n  sql:\n    partitions: 200\n"),
    ("another nested JSON key", "spark.sql.shuffle.partitions", '{"spark": {"sql": {"partitions": 200}}}\n'),
    ("a nested JSON key of a sibling", "server.maxConnections",
     '{\n  "server": {"port": 80},\n  "client": {"maxConnections": 100}\n}\n'),
    ("a fallback that is another variable", "SEARCH_TIMEOUT_MS",
     'exec gw "${SEARCH_TIMEOUT_MS:-$D}" ${SEARCH_TIMEOUT_MS:?}\n'),
    ("a longer system property", "spark.sql.shuffle.partitions", 'JAVA_OPTS="-Dspark.sql.shuffle.partitions.max=4"\n'),
]


@pytest.mark.parametrize("what, name, text", NOT_THERE, ids=[r[0] for r in NOT_THERE])
def test_what_does_not_set_the_setting_is_not_read(what, name, text):
    assert read_settings(text, name) == ()


UNREADABLE = [
    ("valueFrom", "SEARCH_TIMEOUT_MS",
     "env:\n  - name: SEARCH_TIMEOUT_MS\n    valueFrom:\n      configMapKeyRef: {name: c, key: k}\n", 3),
    ("a template", "SEARCH_TIMEOUT_MS", "env:\n  SEARCH_TIMEOUT_MS: {{ .Values.timeout }}\n", 2),
    ("another variable", "SEARCH_TIMEOUT_MS", "export SEARCH_TIMEOUT_MS=$DEFAULT_TIMEOUT\n", 1),
    ("another variable as the default", "SEARCH_TIMEOUT_MS", "SEARCH_TIMEOUT_MS=${SEARCH_TIMEOUT_MS:-$DEFAULT}\n", 1),
    ("prose", "SEARCH_TIMEOUT_MS", 'echo "raising SEARCH_TIMEOUT_MS for the night"\n', 1),
    ("python", "SEARCH_TIMEOUT_MS", 'os.environ.setdefault("SEARCH_TIMEOUT_MS", "20")\n', 1),
    ("a nested block", "SEARCH_TIMEOUT_MS", "SEARCH_TIMEOUT_MS:\n  value: 20\n", 1),
    ("a terraform variable without a default", "SEARCH_TIMEOUT_MS",
     'variable "SEARCH_TIMEOUT_MS" {\n  type = number\n}\n', 1),
    ("passed through from the host", "SEARCH_TIMEOUT_MS", "docker run -e SEARCH_TIMEOUT_MS -e A=1 gateway\n", 1),
]


@pytest.mark.parametrize("what, name, text, line", UNREADABLE, ids=[r[0] for r in UNREADABLE])
def test_a_form_no_reader_understands_is_returned_without_a_value(what, name, text, line):
    found = read_settings(text, name)
    assert [(item.line, item.value) for item in found] == [(line, None)], found


# ---- the rule ------------------------------------------------------------------------------------

def knob(status: str, value: int = 20, history: str = "", paths: tuple[str, ...] = ("deploy/app.sh",),
         pattern: str | None = None) -> str:
    deploys = "".join(f"  - path: {p}\n" + (f"    pattern: '{pattern}'\n" if pattern else "") for p in paths)
    last = "reverted" if status == "reverted" else status
    return f"""\
id: search-timeout
name: SEARCH_TIMEOUT_MS
summary: How long the gateway waits for search.
value: {value}
status: {status}
default: 100
{"keep_reverted: reverted by hand in this test" + chr(10) if status == "reverted" else ""}applies_to:
{deploys}history:
  - date: 2026-10-01
    status: active
    value: 50
{history}  - date: 2026-10-05
    status: {last}
"""


TUNED_TWICE = "  - date: 2026-10-03\n    status: active\n    value: 20\n"


def check(kb, root: Path, files: dict[str, str], record: str, *extra: str) -> list[dict]:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "knobs/search-timeout.yaml").write_text(record)
    result = kb("check", "--root", root, "--format", "json", *extra)
    assert "Traceback" not in result.err
    return [f for f in json.loads(result.out)["findings"] if f["subject"] == "search-timeout"]


K8S = "containers:\n  - name: gateway\n    env:\n      - name: SEARCH_TIMEOUT_MS\n        value: \"20\"\n"


def test_an_active_knob_in_a_kubernetes_env_list_is_no_false_alarm(kb, empty_kb):
    assert check(kb, empty_kb, {"deploy/k8s.yaml": K8S}, knob("active", paths=("deploy/k8s.yaml",))) == []


def test_a_reverted_knob_still_in_a_kubernetes_env_list_drifts_at_the_value_line(kb, empty_kb):
    found = check(kb, empty_kb, {"deploy/k8s.yaml": K8S}, knob("reverted", paths=("deploy/k8s.yaml",)))
    assert [(f["code"], f["path"], f["line"]) for f in found] == [("knob-drift", "deploy/k8s.yaml", 5)]
    message = found[0]["message"]
    assert "knob 'search-timeout' (knobs/search-timeout.yaml) is reverted" in message
    assert "deploy/k8s.yaml:5 still sets it ('- name: SEARCH_TIMEOUT_MS' ... 'value: \"20\"')" in message


def test_a_reverted_knob_drifts_on_an_older_tuned_value_too(kb, empty_kb):
    record = knob("reverted", value=20, history=TUNED_TWICE)  # tuned to 50, then to 20
    found = check(kb, empty_kb, {"deploy/app.sh": "export SEARCH_TIMEOUT_MS=50\n"}, record)
    assert [(f["code"], f["line"]) for f in found] == [("knob-drift", 1)]
    assert "a value it was tuned to before (50)" in found[0]["message"]
    found = check(kb, empty_kb, {"deploy/app.sh": "export SEARCH_TIMEOUT_MS=20\n"}, record)
    assert [(f["code"], f["line"]) for f in found] == [("knob-drift", 1)]
    assert "tuned to before" not in found[0]["message"]


@pytest.mark.parametrize("text", ["export SEARCH_TIMEOUT_MS=100\n", "# export SEARCH_TIMEOUT_MS=20\n", "exit 0\n",
                                  "export SEARCH_TIMEOUT_MS=75\n"])
def test_a_reverted_knob_may_be_set_to_its_default_or_left_out(kb, empty_kb, text):
    assert check(kb, empty_kb, {"deploy/app.sh": text}, knob("reverted", history=TUNED_TWICE)) == []


def test_an_older_tuned_value_also_counts_through_a_records_pattern(kb, empty_kb):
    record = knob("reverted", history=TUNED_TWICE, pattern="^export {name}={value}$")
    found = check(kb, empty_kb, {"deploy/app.sh": "#!/bin/sh\nexport SEARCH_TIMEOUT_MS=50\n"}, record)
    assert [(f["code"], f["path"], f["line"]) for f in found] == [("knob-drift", "deploy/app.sh", 2)]


def test_a_form_no_reader_understands_is_a_finding_not_silence(kb, empty_kb):
    text = "env:\n  - name: SEARCH_TIMEOUT_MS\n    valueFrom:\n      configMapKeyRef: {name: gw, key: timeout}\n"
    for status in ("reverted", "active"):
        found = check(kb, empty_kb, {"deploy/k8s.yaml": text}, knob(status, paths=("deploy/k8s.yaml",)))
        assert [(f["code"], f["path"], f["line"]) for f in found] == [("unreadable-setting", "deploy/k8s.yaml", 3)]
        assert found[0]["message"].startswith(
            "cannot read SEARCH_TIMEOUT_MS in deploy/k8s.yaml:3 ('- name: SEARCH_TIMEOUT_MS' ... 'valueFrom:')")
        assert "knobs/search-timeout.yaml" in found[0]["message"]
        assert found[0]["severity"] == "error"


def test_an_active_knob_set_to_another_value_drifts_at_that_line(kb, empty_kb):
    found = check(kb, empty_kb, {"deploy/app.sh": "#!/bin/sh\n\nexport SEARCH_TIMEOUT_MS=50\n"}, knob("active"))
    assert [(f["code"], f["path"], f["line"]) for f in found] == [("knob-drift", "deploy/app.sh", 3)]
    assert "line 3 sets 'export SEARCH_TIMEOUT_MS=50' instead (the value 50)" in found[0]["message"]


FIVE_FORMS = {
    "deploy/app.sh": "#!/bin/sh\nexport SEARCH_TIMEOUT_MS=20\nexec gateway\n",
    "deploy/k8s.yaml": K8S,
    "deploy/values.yaml": "gateway:\n  env:\n    SEARCH_TIMEOUT_MS: \"20\"\n",
    "deploy/main.tf": 'resource "x" "y" {\n  environment = {\n    SEARCH_TIMEOUT_MS = "20"\n  }\n}\n',
    "deploy/gateway.service": "[Service]\nEnvironment=\"SEARCH_TIMEOUT_MS=20\"\nExecStart=/usr/bin/gateway\n",
}


def test_one_knob_deployed_through_five_formats(kb, empty_kb):
    paths = tuple(sorted(FIVE_FORMS))
    assert check(kb, empty_kb, FIVE_FORMS, knob("active", paths=paths)) == []
    found = check(kb, empty_kb, FIVE_FORMS, knob("reverted", paths=paths))
    assert sorted((f["path"], f["line"]) for f in found if f["code"] == "knob-drift") == [
        ("deploy/app.sh", 2), ("deploy/gateway.service", 2), ("deploy/k8s.yaml", 5), ("deploy/main.tf", 3),
        ("deploy/values.yaml", 3)]
    assert len(found) == 5


def test_a_quoted_deploy_line_is_shown_whole(kb, empty_kb):
    line = 'export SEARCH_TIMEOUT_MS="20"  # tuned by the search team, see INC-42'
    found = check(kb, empty_kb, {"deploy/app.sh": line + "\n"}, knob("reverted"))
    assert f"('{line}')" in found[0]["message"]


@pytest.mark.parametrize("form", ["text", "github", "gitlab", "json"])
def test_the_drift_location_is_the_deploy_files_line_in_every_format(kb, empty_kb, form):
    check(kb, empty_kb, {"deploy/app.sh": "#!/bin/sh\n\nexport SEARCH_TIMEOUT_MS=20\n"}, knob("reverted"))
    out = kb("check", "--root", empty_kb, "--format", form).out
    if form == "text":
        assert "deploy/app.sh:3:8: error knob-drift: knob 'search-timeout' (knobs/search-timeout.yaml)" in out
    elif form == "github":
        assert "::error file=deploy/app.sh,line=3,col=8,title=knob-drift::" in out
    elif form == "gitlab":
        issue = next(i for i in json.loads(out) if i["check_name"] == "knob-drift")
        assert issue["location"] == {"path": "deploy/app.sh", "lines": {"begin": 3}}
    else:
        drift = next(f for f in json.loads(out)["findings"] if f["code"] == "knob-drift")
        assert (drift["path"], drift["line"]) == ("deploy/app.sh", 3)


def test_the_knob_page_shows_a_drift_found_in_its_deploy_file(empty_kb):
    from incident_kb.check.pipeline import check_knowledge_base
    from incident_kb.website.core.links import SiteSettings
    from incident_kb.website.core.pages import render_site

    (empty_kb / "deploy").mkdir()
    (empty_kb / "deploy/app.sh").write_text("export SEARCH_TIMEOUT_MS=20\n")
    (empty_kb / "knobs/search-timeout.yaml").write_text(knob("reverted"))
    site = render_site(check_knowledge_base(empty_kb), SiteSettings(site_name="kb", docs_dir="docs", edit_base=None))
    assert "Error knob-drift (deploy/app.sh:1)" in site.files["knobs/search-timeout.md"]


def test_revert_lists_each_line_to_change_in_any_form(kb, empty_kb):
    (empty_kb / "incidents/gw-slow.yaml").write_text(
        "id: gw-slow\ntitle: Gateway slow\nstatus: open\nstarted: 2026-10-04\nhypotheses:\n"
        "  - id: timeout-too-short\n    statement: The timeout is too short.\n    status: open\n")
    record = knob("active", paths=("deploy/k8s.yaml",)).replace("  - date: 2026-10-05\n    status: active\n", "")
    assert check(kb, empty_kb, {"deploy/k8s.yaml": K8S}, record) == []
    result = kb("revert", "search-timeout", "--incident", "gw-slow", "--hypothesis", "timeout-too-short",
                "--date", "2026-10-06", "--root", empty_kb)
    assert result.code == 0, result.err
    assert "deploy/k8s.yaml:5: remove '- name: SEARCH_TIMEOUT_MS' ... 'value: \"20\"'" in result.out


def test_windows_line_ends_and_stray_breaks_keep_line_numbers():
    text = "@echo off\r\nset A=1\x0c\r\nexport SEARCH_TIMEOUT_MS=20\r\n"
    assert [(item.line, item.value, item.text) for item in read_settings(text, "SEARCH_TIMEOUT_MS")] == [
        (3, "20", "export SEARCH_TIMEOUT_MS=20")]


# ---- a value handed on from where the file runs ----------------------------------------------------

@pytest.mark.parametrize("text", [
    "export SEARCH_TIMEOUT_MS=20\nexec docker run -e SEARCH_TIMEOUT_MS -e A=1 gateway\n",
    "export SEARCH_TIMEOUT_MS=20\nexec docker run --env SEARCH_TIMEOUT_MS gateway\n",
    "export SEARCH_TIMEOUT_MS=20\nexec podman run --env=SEARCH_TIMEOUT_MS gateway\n",
])
def test_a_value_handed_on_after_the_file_sets_it_is_no_unreadable_line(kb, empty_kb, text):
    assert check(kb, empty_kb, {"deploy/app.sh": text}, knob("active")) == []
    found = check(kb, empty_kb, {"deploy/app.sh": text}, knob("reverted"))
    assert [(f["code"], f["line"]) for f in found] == [("knob-drift", 1)]


@pytest.mark.parametrize("path, text, line", [
    ("deploy/app.sh", "exec docker run -e SEARCH_TIMEOUT_MS gateway\n", 1),
    ("deploy/compose.yaml", "services:\n  gateway:\n    environment:\n      - SEARCH_TIMEOUT_MS\n", 4),
])
def test_a_value_handed_on_that_the_file_never_sets_cannot_be_read(kb, empty_kb, path, text, line):
    for status in ("active", "reverted"):
        found = check(kb, empty_kb, {path: text}, knob(status, paths=(path,)))
        assert [(f["code"], f["path"], f["line"]) for f in found] == [("unreadable-setting", path, line)]
        assert found[0]["message"].startswith(f"cannot read SEARCH_TIMEOUT_MS in {path}:{line} (")
        assert "hands on the value SEARCH_TIMEOUT_MS has where it runs" in found[0]["message"]


# ---- aliases: an old name or a config key a deploy file may use --------------------------------------

def aliased(status: str) -> str:
    return knob(status).replace("default: 100\n", "default: 100\naliases: [GW_SEARCH_TIMEOUT, timeout]\n")


def test_a_reverted_knob_still_set_under_an_alias_drifts(kb, empty_kb):
    found = check(kb, empty_kb, {"deploy/app.sh": "#!/bin/sh\nexport GW_SEARCH_TIMEOUT=20\n"}, aliased("reverted"))
    assert [(f["code"], f["line"]) for f in found] == [("knob-drift", 2)]
    assert "('export GW_SEARCH_TIMEOUT=20')" in found[0]["message"]
    assert check(kb, empty_kb, {"deploy/app.sh": "export GW_SEARCH_TIMEOUT=100\n"}, aliased("reverted")) == []


def test_an_active_knob_set_under_an_alias_agrees_and_prose_naming_an_alias_is_left_alone(kb, empty_kb):
    text = 'export GW_SEARCH_TIMEOUT=20\necho "the timeout is set above"\n'
    assert check(kb, empty_kb, {"deploy/app.sh": text}, aliased("active")) == []
    found = check(kb, empty_kb, {"deploy/app.sh": "export GW_SEARCH_TIMEOUT=30\n"}, aliased("active"))
    assert [(f["code"], f["line"]) for f in found] == [("knob-drift", 1)]
    assert check(kb, empty_kb, {"deploy/app.sh": "export SEARCH_TIMEOUT_MS=20\nexport GW_SEARCH_TIMEOUT=30\n"},
                 aliased("active")) == []  # the setting's own name decides
