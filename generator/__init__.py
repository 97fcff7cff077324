"""incident-kb: knobs and incidents as records, checked and rendered into a site."""

from importlib.metadata import PackageNotFoundError, version

try:
    # The version lives in one place, pyproject.toml; the installed metadata carries it here.
    __version__ = version("incident-kb")
except PackageNotFoundError:  # pragma: no cover - run from a source tree that was never installed
    __version__ = "0+unknown"
