"""The package's shape, as docs/reference/architecture.md draws it: stages whose imports flow one way, no cycles (lazy
imports inside functions count), MkDocs imported only by its glue, modules of a readable size."""

from __future__ import annotations

import ast
from pathlib import Path

from .conftest import REPO

PACKAGE = REPO / "generator"
# Each module's stage; a module may import its own stage and earlier ones, never a later one.
# website and authoring are siblings: both consume the pipeline, neither imports the other.
STAGES = {
    "generator.findings": 0, "generator.command": 0, "generator.wording": 0, "generator.reference_date": 0,
    "generator.cache": 0,
    "generator.records": 1,
    "generator.history": 2,
    "generator.checking": 3,
    "generator.pipeline": 4, "generator.pr_mode": 4, "generator.check_memo": 4, "generator.recheck": 4,
    "generator.ledger": 4,
    "generator.website": 5, "generator.authoring": 5,
    "generator.check_commands": 6, "generator.cli": 6,
}
# The site's adapters: each consumes the core's bundle; the core imports none of them, and only the
# MkDocs adapter imports the MkDocs world (its plugin API, Material, gen-files, and the watchers of
# its live preview).
SITE_CORE = "generator.website.core"
MKDOCS_ADAPTER = "generator.website.mkdocs"
SITE_ADAPTERS = (MKDOCS_ADAPTER, "generator.website.folder")
MKDOCS_WORLD = ("mkdocs", "material", "mkdocs_gen_files", "properdocs", "watchdog", "livereload")
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str | None = None) -> set[str]:
    """Every module of the package (or outside it) that `path` (module `name`) imports, at any depth
    in the file: lazy imports inside functions count."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            # `from . import acts` imports a module, not a name
            found.update(f"{base}.{alias.name}" for alias in node.names
                         if (PACKAGE.parent / f"{base}.{alias.name}".replace(".", "/")).with_suffix(".py").exists()
                         or (PACKAGE.parent / f"{base}.{alias.name}".replace(".", "/")).is_dir())
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "fresh_module") and node.args and isinstance(node.args[0], ast.Constant):
            found.add(str(node.args[0].value))
    return found


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}


def _stage(module: str) -> tuple[int, str]:
    for prefix, rank in sorted(STAGES.items(), key=lambda item: -len(item[0])):
        if module == prefix or module.startswith(prefix + "."):
            return rank, prefix
    raise AssertionError(f"{module} belongs to no stage; add it to STAGES and to docs/reference/architecture.md")


def test_every_module_belongs_to_a_stage():
    for module in _graph():
        if module != "generator":
            _stage(module)


def test_no_stage_imports_a_later_one_or_a_sibling():
    wrong = []
    for module, imported in _graph().items():
        if module == "generator":
            continue
        rank, stage = _stage(module)
        for other in imported:
            if other == "generator":
                continue
            other_rank, other_stage = _stage(other)
            if other_rank > rank or (other_rank == rank and other_stage != stage and rank == 5):
                wrong.append(f"{module} imports {other}")
    assert not wrong, "imports must flow stage to later stage:\n" + "\n".join(sorted(wrong))


def test_no_import_cycles():
    graph = _graph()
    cycles = []
    state: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(module: str, stack: list[str]) -> None:
        state[module] = 1
        for other in sorted(graph[module]):
            if state.get(other) == 1:
                cycles.append(" -> ".join([*stack[stack.index(other):], other]))
            elif other not in state:
                visit(other, [*stack, other])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    # A package's __init__ importing its own modules is not a cycle a reader trips over.
    cycles = [c for c in cycles if not all(part.startswith(c.split(" -> ")[0]) for part in c.split(" -> "))]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_lazy_and_dynamic_imports_are_seen(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import importlib\n\ndef f():\n    from ..pipeline import load_knowledge_base\n"
                     "    from . import model\n    return importlib.import_module('generator.cli')\n")
    assert {"generator.pipeline", "generator.records.model", "generator.cli"} <= _imports(
        probe, "generator.records.probe")


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_only_the_mkdocs_adapter_imports_mkdocs_material_gen_files_or_the_watchers():
    wrong = [f"{name} imports {m}" for name, path in ((_module_name(p), p) for p in PACKAGE.rglob("*.py"))
             for m in _imports(path) if m.split(".")[0] in MKDOCS_WORLD and not _within(name, MKDOCS_ADAPTER)]
    assert not wrong, "\n".join(wrong)


def test_the_site_core_imports_no_adapter_and_adapters_not_each_other():
    wrong = []
    for module, imported in _graph().items():
        for other in imported:
            adapter = next((a for a in SITE_ADAPTERS if _within(other, a)), None)
            if adapter is None or _within(module, adapter):
                continue
            if _within(module, "generator.website") and module != "generator.website":
                wrong.append(f"{module} imports {other}")
    assert not wrong, "the core renders; adapters consume its bundle:\n" + "\n".join(sorted(wrong))


def test_the_architecture_rules_see_a_forbidden_import(tmp_path):
    """The rules above can fail: a core module importing MkDocs or an adapter is seen."""
    probe = tmp_path / "probe.py"
    probe.write_text("from mkdocs.structure.files import File\nfrom ..mkdocs import glue\n")
    imported = _imports(probe, "generator.website.core.probe")
    assert "mkdocs.structure.files" in imported and "generator.website.mkdocs.glue" in imported


def test_modules_stay_small():
    big = [f"{p.relative_to(REPO)}: {n} lines" for p in PACKAGE.rglob("*.py")
           if (n := p.read_text(encoding="utf-8").count("\n")) > MAX_LINES]
    assert not big, f"split these before they pass {MAX_LINES} lines:\n" + "\n".join(big)


def test_no_two_modules_differ_only_by_a_suffix():
    stems = sorted({p.stem for p in PACKAGE.rglob("*.py")} - {"__init__"})
    clashes = [(a, b) for a in stems for b in stems if a != b and b.startswith(a + "_")]
    assert not clashes, clashes


# ---- one reader: every look at a file in stages 1 to 4 goes through records/files.py -------------------
#
# The remembered `kb check` result is keyed by every look the check made, which records/files.py writes
# down; a look made anywhere else would be an input no key holds. So stages 1 to 4 may not open, stat,
# list or resolve a path themselves. (Writing is not looking: pr_mode writes the base's files through
# files.write_new_file too.) git is run by history/ and reports through git_view, the other input.
READER = "generator.records.files"
WRITER = "generator.records.writes"  # kb's one writer (init, edits, render): `kb check` never runs it
# os, os.path and shutil functions that look at a path; Path methods that do (on any object: a method of
# that name elsewhere must be renamed or go through the reader too).
LOOKING_FUNCTIONS = {"open", "stat", "lstat", "scandir", "listdir", "walk", "readlink", "access", "exists",
                     "lexists", "isfile", "isdir", "islink", "realpath", "getsize", "getmtime", "getctime",
                     "samefile", "copy", "copyfile", "copytree"}
LOOKING_METHODS = {"read_text", "read_bytes", "open", "exists", "is_file", "is_dir", "is_symlink", "is_fifo",
                   "is_socket", "is_block_device", "is_char_device", "stat", "lstat", "iterdir", "glob", "rglob",
                   "resolve", "readlink", "samefile"}
NOT_LOOKS = {"catalog.exists": "the catalog's ids, not a path"}


def _looks(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            found.append(f"{path.name}:{node.lineno}: open()")
        elif isinstance(func, ast.Attribute):
            owner = ast.unparse(func.value)
            if owner in ("os", "os.path", "shutil"):
                if func.attr in LOOKING_FUNCTIONS:
                    found.append(f"{path.name}:{node.lineno}: {owner}.{func.attr}()")
            elif func.attr in LOOKING_METHODS and f"{owner}.{func.attr}" not in NOT_LOOKS:
                found.append(f"{path.name}:{node.lineno}: .{func.attr}()")
    return found


def test_stages_1_to_4_look_at_files_only_through_records_files():
    looks = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        if name in (READER, WRITER) or name == "generator" or _stage(name)[0] not in (1, 2, 3, 4):
            continue
        looks += _looks(path)
    assert not looks, ("look at files through generator/records/files.py (which writes each look down for the "
                       "remembered result's key):\n" + "\n".join(looks))


def test_the_look_finder_sees_looks(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\nfrom pathlib import Path\n\ndef f(p):\n    os.stat(p)\n    Path(p).read_text()\n"
                     "    os.path.exists(p)\n    p.resolve()\n    open(p)\n    list(os.scandir(p))\n")
    assert len(_looks(probe)) == 6, _looks(probe)
