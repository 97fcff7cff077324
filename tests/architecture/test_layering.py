"""The package's shape, as docs/reference/architecture.md draws it: stages whose imports flow one way, no cycles (lazy
imports inside functions count), MkDocs imported only by its glue, modules of a readable size."""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from ..conftest import REPO

PACKAGE = REPO / "generator" / "incident_kb"
ARCHITECTURE = REPO / "docs" / "reference" / "architecture.md"
# The site's adapters: each consumes the core's bundle; the core imports none of them, and only the
# MkDocs adapter imports the MkDocs world (its plugin API, Material, gen-files, and the watchers of
# its live preview).
SITE_CORE = "incident_kb.website.core"
MKDOCS_ADAPTER = "incident_kb.website.mkdocs"
SITE_ADAPTERS = (MKDOCS_ADAPTER, "incident_kb.website.folder")
MKDOCS_WORLD = ("mkdocs", "material", "mkdocs_gen_files", "properdocs", "watchdog", "livereload")
MAX_FUNCTION_LINES = 100


@dataclass(frozen=True)
class Stage:
    rank: int
    siblings_import_each_other: bool


def _architecture() -> str:
    return ARCHITECTURE.read_text(encoding="utf-8")


@functools.cache
def _stages() -> dict[str, Stage]:
    """The one list of stages: the table in docs/reference/architecture.md, each package or module's
    stage, and whether packages on one stage may import each other."""
    stages: dict[str, Stage] = {}
    for row in re.finditer(r"^\| (\d+) \| (.+?) \| .+? \| (yes|no) \|$", _architecture(), re.MULTILINE):
        for name in re.findall(r"`([\w/.]+)`", row.group(2)):
            module = "incident_kb." + name.removesuffix("/").removesuffix(".py").replace("/", ".")
            stages[module] = Stage(int(row.group(1)), row.group(3) == "yes")
    assert stages, f"no stage table in {ARCHITECTURE}"
    return stages


def _documented_tree() -> set[str]:
    """Every module and folder the doc's tree names, as paths under the package: an entry is the first
    word of a line in the tree (indented two spaces per level), ending in .py or /."""
    block = re.search(r"```text\nincident_kb/\n(.*?)```", _architecture(), re.DOTALL)
    assert block, f"no tree of incident_kb/ in {ARCHITECTURE}"
    named: set[str] = set()
    folders: list[str] = []
    for line in block.group(1).splitlines():
        word = line.lstrip().split(" ", 1)[0]
        if not (word.endswith(".py") or word.endswith("/")):
            continue
        depth = (len(line) - len(line.lstrip())) // 2 - 1
        del folders[depth:]
        named.add("/".join([*folders, word]).removesuffix("/"))
        if word.endswith("/"):
            folders.append(word.removesuffix("/"))
    return named


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The module's syntax tree, parsed once a worker: three rules below walk every module."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _imports(path: Path, name: str | None = None) -> set[str]:
    """Every module of the package (or outside it) that `path` (module `name`) imports, at any depth
    in the file: lazy imports inside functions count."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(_tree(path)):
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


@functools.cache
def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}


def _stage(module: str) -> tuple[int, str, Stage]:
    """The stage `module` is on, and the package or module of the table that puts it there."""
    for prefix, stage in sorted(_stages().items(), key=lambda item: -len(item[0])):
        if module == prefix or module.startswith(prefix + "."):
            return stage.rank, prefix, stage
    raise AssertionError(f"{module} belongs to no stage; add it to the stage table of {ARCHITECTURE.relative_to(REPO)}")


def test_every_module_belongs_to_a_stage():
    for module in _graph():
        if module != "incident_kb":
            _stage(module)


def test_no_stage_imports_a_later_one_or_a_sibling_it_may_not():
    wrong = []
    for module, imported in _graph().items():
        if module == "incident_kb":
            continue
        rank, package, stage = _stage(module)
        for other in imported:
            if other == "incident_kb":
                continue
            other_rank, other_package, _ = _stage(other)
            if other_rank > rank or (other_rank == rank and other_package != package
                                     and not stage.siblings_import_each_other):
                wrong.append(f"{module} imports {other}")
    assert not wrong, "imports must flow stage to later stage:\n" + "\n".join(sorted(wrong))


def test_the_architecture_doc_names_every_module_and_only_modules():
    actual = {p.relative_to(PACKAGE).with_suffix("").as_posix() + ".py" for p in PACKAGE.rglob("*.py")
              if p.name != "__init__.py"}
    actual |= {p.parent.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE}
    named = _documented_tree()
    assert not actual - named, f"modules the tree of {ARCHITECTURE.name} does not name: {sorted(actual - named)}"
    assert not named - actual, f"the tree of {ARCHITECTURE.name} names what is not there: {sorted(named - actual)}"


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
    probe.write_text("import importlib\n\ndef f():\n    from ..check.pipeline import load_knowledge_base\n"
                     "    from . import model\n    return importlib.import_module('incident_kb.cli')\n")
    assert {"incident_kb.check.pipeline", "incident_kb.records.model", "incident_kb.cli"} <= _imports(
        probe, "incident_kb.records.probe")


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
            if _within(module, "incident_kb.website") and module != "incident_kb.website":
                wrong.append(f"{module} imports {other}")
    assert not wrong, "the core renders; adapters consume its bundle:\n" + "\n".join(sorted(wrong))


def test_the_architecture_rules_see_a_forbidden_import(tmp_path):
    """The rules above can fail: a core module importing MkDocs or an adapter is seen."""
    probe = tmp_path / "probe.py"
    probe.write_text("from mkdocs.structure.files import File\nfrom ..mkdocs import glue\n")
    imported = _imports(probe, "incident_kb.website.core.probe")
    assert "mkdocs.structure.files" in imported and "incident_kb.website.mkdocs.glue" in imported


def test_functions_stay_short():
    """Modules are split where their concepts split, whatever their length; a function past
    MAX_FUNCTION_LINES does several things and reads as several."""
    long = [f"{p.relative_to(REPO)}:{node.lineno}: {node.name}, {node.end_lineno - node.lineno + 1} lines"
            for p in PACKAGE.rglob("*.py") for node in ast.walk(_tree(p))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and (node.end_lineno or 0) - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"split these functions (over {MAX_FUNCTION_LINES} lines):\n" + "\n".join(long)


def test_no_two_modules_differ_only_by_a_suffix():
    stems = sorted({p.stem for p in PACKAGE.rglob("*.py")} - {"__init__"})
    clashes = [(a, b) for a in stems for b in stems if a != b and b.startswith(a + "_")]
    assert not clashes, clashes


# ---- one reader: every look at a file in the check's stages goes through repository/files.py ---------
#
# The remembered `kb check` result is keyed by every look the check made, which repository/files.py writes
# down; a look made anywhere else would be an input no key holds. So the stages up to check/ may not open, stat,
# list or resolve a path themselves. (Writing is not looking: pr_mode writes the base's files through
# files.write_new_file too.) git is run by history/ and reports through git_view, the other input.
READER = "incident_kb.repository.files"
CHECK = "incident_kb.check"  # the last stage `kb check` runs
WRITER = "incident_kb.repository.writes"  # kb's one writer (init, edits, render): `kb check` never runs it
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
    for node in ast.walk(_tree(path)):
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


def test_the_check_looks_at_files_only_through_the_reader():
    looks = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        if name in (READER, WRITER) or name == "incident_kb" or not 1 <= _stage(name)[0] <= _stage(CHECK)[0]:
            continue
        looks += _looks(path)
    assert not looks, ("look at files through generator/incident_kb/repository/files.py (which writes each look "
                       "down for the remembered result's key):\n" + "\n".join(looks))


def test_the_look_finder_sees_looks(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\nfrom pathlib import Path\n\ndef f(p):\n    os.stat(p)\n    Path(p).read_text()\n"
                     "    os.path.exists(p)\n    p.resolve()\n    open(p)\n    list(os.scandir(p))\n")
    assert len(_looks(probe)) == 6, _looks(probe)
