"""The `kb` command: a thin layer from arguments to the pipeline and back to an exit code.

Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 the tool could not run.
Each subcommand is a parser plus a `run(args) -> int` function, attached with set_defaults.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .findings import CODES, KbError, Severity
from .knowledge_base import KnowledgeBase, check_knowledge_base, find_root, finalize, load_knowledge_base
from .report import FORMATS
from .schema import RECORD_TYPES, json_schema


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise KbError(f"{message} (see '{self.prog} --help')")


def add_root(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--root", type=Path, default=None,
                     help="the knowledge base's repository (default: the one containing the current folder)")


def root_of(args: argparse.Namespace) -> Path:
    return args.root if args.root is not None else find_root(Path.cwd())


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kb", description="Check and render a knowledge base of knobs and incidents.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    validate = commands.add_parser("validate", help="check the records against the schema and each other")
    add_root(validate)
    validate.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format")
    validate.set_defaults(run=run_validate)

    check = commands.add_parser("check", help="validate, then apply the rules (reclaimable knobs, drift...)")
    add_root(check)
    check.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format")
    check.set_defaults(run=run_check)

    schema = commands.add_parser("schema", help="print the JSON Schema of a record kind")
    schema.add_argument("kind", choices=sorted(RECORD_TYPES))
    schema.set_defaults(run=run_schema)

    codes = commands.add_parser("codes", help="list the finding codes and their default severities")
    codes.set_defaults(run=run_codes)

    render = commands.add_parser("render", help="write the site's generated pages to a folder (what the "
                                                "mkdocs build generates, for any markdown site generator)")
    add_root(render)
    render.add_argument("--out", type=Path, required=True, help="the folder to write the pages into")
    render.set_defaults(run=run_render)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except KbError as exc:
        print(f"kb: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def run_validate(args: argparse.Namespace) -> int:
    kb = load_knowledge_base(root_of(args))
    kb.findings = finalize(kb)
    return _report(kb, args.format)


def run_check(args: argparse.Namespace) -> int:
    return _report(check_knowledge_base(root_of(args)), args.format)


def run_schema(args: argparse.Namespace) -> int:
    print(json.dumps(json_schema(args.kind), indent=2))
    return 0


def run_codes(args: argparse.Namespace) -> int:
    for code in CODES.values():
        print(f"{code.slug:26} {code.severity.value:8} {code.meaning}")
    return 0


def run_render(args: argparse.Namespace) -> int:
    # Imported here so that `kb check`, the PR check, does not load the site's dependencies.
    from .render_files import write_rendered_site

    root = root_of(args)
    written, findings = write_rendered_site(root, args.out)
    shown = f"; {findings} finding{'s' * (findings != 1)} of kb check shown on the pages" if findings else ""
    print(f"kb render: wrote {written} files to {args.out}{shown}")
    return 0


def _report(kb: KnowledgeBase, output_format: str) -> int:
    catalog = kb.catalog
    knobs = len(catalog.knobs) + len(catalog.broken_ids["knob"])
    incidents = len(catalog.incidents) + len(catalog.broken_ids["incident"])
    summary = f"{knobs} knob{'s' * (knobs != 1)}, {incidents} incident{'s' * (incidents != 1)} checked"
    sys.stdout.write(FORMATS[output_format](kb.findings, summary))
    return 1 if any(f.severity is Severity.ERROR for f in kb.findings) else 0


if __name__ == "__main__":
    sys.exit(main())
