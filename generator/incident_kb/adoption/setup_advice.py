"""What `kb init` says about the site: the state of an existing configuration, the change it needs
to show the knowledge base (the diff `kb init --merge` applies, or lines to add by hand), and the
`next:` steps, each true for the situation it prints in. Decides nothing and writes nothing.
"""

from __future__ import annotations

import os

from ..check.formats import displayable
from ..wording import path_word
from .hook_merge import HookAddition
from .site_merge import SiteSetup


def config_state(setup: SiteSetup) -> str:
    if setup.cannot_merge is not None:
        return "add the lines below to it by hand"
    if setup.additions is None or setup.additions.new_text is None:
        return "it shows the knowledge base already"
    return "kb init --merge adds the knowledge base to it"


def what_to_add(setup: SiteSetup) -> list[str]:
    """The change the existing configuration needs, as the diff --merge would apply, or the lines to
    add by hand where --merge cannot."""
    additions = setup.additions
    name = displayable(setup.config_name)
    if setup.cannot_merge is not None and setup.parent_additions is not None and setup.parent_name is not None:
        parent = displayable(setup.parent_name)
        if setup.parent_additions.new_text is None:
            return [f"{parent}, which {name} inherits from, shows the knowledge base already"]
        return [f"{name} inherits from {parent}, which needs this change to show the knowledge base (kb init "
                f"--merge changes {name} alone, and cannot here: {displayable(setup.cannot_merge)}); the diff below "
                f"(each line indented two spaces) applies with `patch {path_word(setup.parent_name)}`, or by hand:",
                *(f"  {displayable(line)}" for line in setup.parent_additions.diff(setup.parent_name,
                                                                                   setup.parent_text or ""))]
    if setup.cannot_merge is not None and setup.generator == "zensical":
        from .toml_merge import hand_lines

        return [f"{name} needs these settings to show the knowledge base under {setup.prefix}/ in {setup.docs}/ "
                f"(kb init --merge cannot add them: {displayable(setup.cannot_merge)}):",
                *(f"  {displayable(line)}" for line in hand_lines(setup.prefix))]
    if setup.cannot_merge is not None:
        from .site_merge import SEARCH_SEPARATOR

        options = f"\n      prefix: {setup.prefix}" if setup.prefix else ""
        return [f"{name} needs these plugins to show the knowledge base (kb init --merge cannot add them: "
                f"{displayable(setup.cannot_merge)}):", "  plugins:", "    - search:",
                f"        separator: '{SEARCH_SEPARATOR}'", "    - tags",
                f"    - incident-kb:{options}".replace("\n", "\n  ")]
    if additions is None or additions.new_text is None:
        return []
    where = f" (under {setup.prefix}/ in {setup.docs}/, beside your pages)" if setup.prefix else ""
    return [f"{name} does not show the knowledge base yet; kb init --merge makes this change{where}:",
            *(f"  {displayable(line)}" for line in additions.diff(setup.config_name, setup.old_text or ""))]


def hook_to_add(hook: HookAddition, shown: str) -> list[str]:
    """What an existing pre-commit configuration (`shown`: its path as printed) needs to run kb check:
    the diff --merge applies, or the entry to add to its repos: by hand."""
    if hook.new_text is None and hook.cannot is None:
        return []
    if hook.new_text is not None:
        return [f"{shown} does not run kb check yet; kb init --merge adds the hook (every other line kept):",
                *(f"  {displayable(line)}" for line in hook.diff(shown))]
    return [f"{shown} does not run kb check yet (kb init --merge cannot add it: {displayable(hook.cannot or '')}); "
            "add this entry to its repos: list, at its indentation:",
            *(f"  {displayable(line.rstrip(chr(10)))}" for line in hook.lines)]


def next_steps(setup: SiteSetup, where: str, in_git: bool, top: str, root: str, merged: bool) -> list[str]:
    """The `next:` lines, true for the situation: a site that does not show the knowledge base yet
    starts with what makes it show it. `top` and `root`: the repository's and the knowledge base's
    folders as the user would type them."""
    root_option = "" if where == "." else f" --root {path_word(root)}"
    config = "" if where == "." and setup.config_name in ("mkdocs.yml", "properdocs.yml", "zensical.toml") else \
        f" -f {path_word(os.path.join(root, setup.config_name))}"
    pending = setup.existing and not merged and setup.additions is not None and setup.additions.new_text is not None
    folder = "" if where == "." else f" {path_word(root)}"
    site = " --site zensical" if setup.generator == "zensical" else ""
    lines = ["next:",
             *([f"  git init {path_word(top)}   # the checks read git history"] if not in_git else []),
             *([f"  kb init{folder}{site} --merge   # adds the knowledge base to {displayable(setup.config_name)} "
                "as shown"]
               if pending else []),
             *([f"  add the lines above to {displayable(setup.parent_name or setup.config_name)}"]
               if setup.cannot_merge is not None else []),
             f"  kb new knob ID --name SETTING --summary TEXT --value VALUE{root_option}",
             "  git add -A && git commit -m 'Start a knowledge base'",
             f"  kb check{root_option}"]
    place = f" (the knowledge base under {setup.prefix}/)" if setup.prefix else ""
    if setup.generator == "zensical":
        lines.append(f"  kb render{root_option} && zensical serve{config}"
                     f"   # the site{place}; kb render again after editing a record")
    else:
        lines.append(f"  {setup.builder} serve{config}   # the site{place}, rebuilt as you edit")
    return lines
