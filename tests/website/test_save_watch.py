"""The live preview's watcher on real folders, with MkDocs' real LiveReloadServer and watchdog's real
observers (polling, and the system's notifications): every input a build read starts a rebuild when
it changes, also one that did not exist when serving started or was deleted and created again; a
change to anything else starts none."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from incident_kb.website.mkdocs.save_watch import Inputs, SaveWatch, Watched

pytestmark = pytest.mark.slow  # waits on real polling watchers: left out of `make test-fast`


class Serving:
    """A LiveReloadServer whose observer runs (as `mkdocs serve` starts it), and the watch."""

    def __init__(self, root: Path, notifications: bool) -> None:
        from mkdocs.livereload import LiveReloadServer

        self.root = root
        self.server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(root / "site"))
        self.server.watch(str(root / "docs"))  # as MkDocs does before on_serve
        self.server.watch(str(root / "mkdocs.yml"))
        self.server.observer.start()
        self.watch = SaveWatch(self.server, [str(root / "docs"), str(root / "mkdocs.yml")],
                               notifications=notifications)
        self.notified = self.watch.start()

    def built(self, inputs: Inputs) -> None:
        """A build that read `inputs` is done: nothing pending. Every change made before is reported
        and handled first: after a pause for the system's notifications, each polling watcher polls once
        more here and every event queued is dispatched. (The pause alone was too short on a loaded
        machine: a poll that came after it reported a change made before, a rebuild that was no
        change's.)"""
        from watchdog.observers.polling import PollingEmitter

        self.watch.watch_inputs(inputs)
        time.sleep(0.8)
        for observer in (self.server.observer, self.watch._notifications):
            if observer is None:
                continue
            for emitter in list(observer.emitters):
                if isinstance(emitter, PollingEmitter):
                    emitter.queue_events(0)  # a poll now, under the emitter's own lock
            observer.event_queue.join()  # every event queued so far dispatched
        with self.server._rebuild_cond:
            self.server._want_rebuild = False

    def rebuilds(self, timeout: float = 6) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.server._rebuild_cond:
                if self.server._want_rebuild:
                    self.server._want_rebuild = False
                    return True
            time.sleep(0.05)
        return False

    def close(self) -> None:
        self.watch.stop()
        self.server.observer.stop()
        self.server.observer.join(timeout=5)
        self.server.server_close()


@pytest.fixture(params=[True, False], ids=["notifications", "polling-only"])
def serving(request, tmp_path) -> Iterator[Serving]:
    root = tmp_path / "kb"
    for folder in ("docs", "knobs", "deploy", "notes"):
        (root / folder).mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: t\n")
    (root / "docs/index.md").write_text("# Home\n")
    (root / "knobs/a.yaml").write_text("id: a\n")
    (root / "deploy/decode.sh").write_text("A=1\n")
    (root / "notes/outside.md").write_text("# Outside docs\n")
    (root / "pyproject.toml").write_text("[tool.incident-kb]\n")
    (root / "README.md").write_text("# Not an input\n")
    live = Serving(root, notifications=request.param)
    assert live.notified is request.param
    try:
        yield live
    finally:
        live.close()


def _inputs(root: Path, listed: tuple[str, ...] = ("knobs",), paths: tuple[str, ...] = ()) -> Inputs:
    """What a check of `root` looks at: pyproject.toml, both record folders (present or not), the
    records, the deploy file and the doc outside docs/ that records name."""
    looked = {root / "pyproject.toml", root / "knobs", root / "incidents", root / "deploy/decode.sh",
              root / "notes/outside.md", *(root / folder for folder in listed), *(root / path for path in paths)}
    for folder in listed:
        if (root / folder).is_dir():
            looked.update((root / folder).iterdir())
    return Inputs(paths=frozenset(map(str, looked)), listed=frozenset(str(root / folder) for folder in listed))


def test_a_change_to_any_input_rebuilds_and_to_anything_else_does_not(serving):
    root = serving.root
    serving.built(_inputs(root))
    for path, text in (("knobs/a.yaml", "id: a\nvalue: 2\n"), ("deploy/decode.sh", "A=2\n"),
                       ("pyproject.toml", "[tool.incident-kb.severity]\n"), ("notes/outside.md", "# Edited\n"),
                       ("docs/index.md", "# Home, edited\n"), ("mkdocs.yml", "site_name: u\n")):
        (root / path).write_text(text)
        assert serving.rebuilds(), f"{path} edited: no rebuild"
    (root / "knobs/b.yaml").write_text("id: b\n")  # an entry of a listed folder
    assert serving.rebuilds(), "a record added: no rebuild"
    serving.built(_inputs(root))
    (root / "knobs/b.yaml").unlink()
    assert serving.rebuilds(), "a record deleted: no rebuild"
    serving.built(_inputs(root))
    os.chmod(root / "knobs/a.yaml", 0o000)  # unreadable now: a finding
    assert serving.rebuilds(), "a record made unreadable: no rebuild"
    os.chmod(root / "knobs/a.yaml", 0o644)
    serving.built(_inputs(root))

    (root / "README.md").write_text("# Still not an input\n")
    (root / "deploy/other.sh").write_text("B=1\n")  # beside a deploy file, named by no record
    (root / ".cache").mkdir()
    (root / ".cache/entry").write_text("x")
    (root / "notes/draft.md").write_text("not named\n")
    assert not serving.rebuilds(timeout=2.5)


def test_a_records_folder_created_after_serving_started_is_watched(serving):
    root = serving.root
    assert not (root / "incidents").exists()
    serving.built(_inputs(root))
    (root / "incidents").mkdir()
    assert serving.rebuilds(), "incidents/ created: no rebuild"
    serving.built(_inputs(root, listed=("knobs", "incidents")))
    (root / "incidents/fresh.yaml").write_text("id: fresh\n")
    assert serving.rebuilds(), "a record in the new folder: no rebuild"
    serving.built(_inputs(root, listed=("knobs", "incidents")))
    (root / "incidents/fresh.yaml").write_text("id: fresh\ntitle: edited\n")
    assert serving.rebuilds(), "a record in the new folder edited: no rebuild"


def test_a_folder_deleted_and_created_again_is_watched_again(serving):
    root = serving.root
    serving.built(_inputs(root))
    shutil.rmtree(root / "knobs")
    assert serving.rebuilds(), "knobs/ deleted: no rebuild"
    serving.built(_inputs(root))  # the build found no knobs/
    (root / "knobs").mkdir()
    (root / "knobs/a.yaml").write_text("id: a\n")
    assert serving.rebuilds(), "knobs/ created again: no rebuild"
    serving.built(_inputs(root))
    (root / "knobs/a.yaml").write_text("id: a\nvalue: 3\n")
    assert serving.rebuilds(), "a record in the new knobs/ edited: no rebuild"
    for folder in ("docs", "deploy"):  # MkDocs' own docs folder, and the folder of a file looked at
        shutil.rmtree(root / folder)
        assert serving.rebuilds(), f"{folder}/ deleted: no rebuild"
        serving.built(_inputs(root))
        (root / folder).mkdir()
        assert serving.rebuilds() or folder == "docs", f"{folder}/ created again: no rebuild"
        serving.built(_inputs(root))
        (root / folder / ("index.md" if folder == "docs" else "decode.sh")).write_text("again\n")
        assert serving.rebuilds(), f"a file in the new {folder}/: no rebuild"
        serving.built(_inputs(root))


def test_a_folder_that_moves_away_and_another_that_takes_its_name(serving):
    root = serving.root
    serving.built(_inputs(root))
    (root / "knobs").rename(root / "old-knobs")
    assert serving.rebuilds()
    serving.built(_inputs(root))
    (root / "old-knobs/a.yaml").write_text("id: a\nvalue: 9\n")  # no longer an input
    assert not serving.rebuilds(timeout=2)
    (root / "old-knobs").rename(root / "knobs")
    assert serving.rebuilds()
    serving.built(_inputs(root))
    (root / "knobs/a.yaml").write_text("id: a\nvalue: 10\n")
    assert serving.rebuilds()


def test_inputs_behind_links_are_watched_where_they_are(serving):
    root = serving.root
    (root / "shared").mkdir()
    (root / "shared/ops.md").write_text("# Ops\n")
    (root / "docs/ops").symlink_to("../shared")  # a linked subfolder inside the repository
    (root / "knobs/linked.yaml").symlink_to("../shared/linked.yaml")  # a record that is a link, dangling yet
    serving.built(_inputs(root, paths=("docs/ops/ops.md",)))
    (root / "shared/ops.md").write_text("# Ops, edited\n")
    assert serving.rebuilds(), "a doc behind a linked folder edited: no rebuild"
    serving.built(_inputs(root, paths=("docs/ops/ops.md",)))
    (root / "shared/linked.yaml").write_text("id: linked\n")
    assert serving.rebuilds(), "the file a linked record names created: no rebuild"


def test_a_change_between_the_builds_look_and_the_watch_rebuilds(serving):
    root = serving.root
    serving.watch.watch_inputs(_inputs(root), changed=lambda: True)
    assert serving.rebuilds(timeout=0.5)
    serving.watch.watch_inputs(_inputs(root), changed=lambda: False)
    assert not serving.rebuilds(timeout=0.5)


def test_one_folder_watched_for_ten_thousand_records(tmp_path):
    root = tmp_path / "kb"
    (root / "knobs/sub").mkdir(parents=True)
    inputs = Inputs(paths=frozenset(str(root / f"knobs/k{i}.yaml") for i in range(10_000)) |
                    {str(root / "knobs/sub/x.yaml"), str(root / "incidents/y.yaml")},
                    listed=frozenset({str(root / "knobs"), str(root / "knobs/sub")}),
                    trees=frozenset({str(root / "docs")}))
    watched = Watched.of(inputs)
    real = os.path.realpath(root)
    assert watched.targets == {(f"{real}/knobs", False), (f"{real}/knobs/sub", False), (real, False)}
    assert watched.concerns(f"{real}/incidents", "created", True)  # a folder on the way to an input
    assert not watched.concerns(f"{real}/other", "created", True)
    assert watched.concerns(f"{real}/docs/deep/page.md", "modified", False)  # inside a tree
    assert not watched.concerns(f"{real}/knobs", "modified", True)  # a folder's own times
