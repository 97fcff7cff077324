"""Everything about the package is in pyproject.toml; this only ships the .pth file that keeps the
MkDocs-2 / end-of-life notices quiet (see incident_kb_quiet_mkdocs.pth): setuptools has no setting
that puts a file at the top of site-packages."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "incident_kb_quiet_mkdocs.pth"


class BuildPyWithPth(build_py):
    def run(self) -> None:
        super().run()
        self.copy_file(PTH, str(Path(self.build_lib) / PTH), preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PTH)]


setup(cmdclass={"build_py": BuildPyWithPth})
