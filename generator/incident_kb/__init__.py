"""incident-kb: knobs and incidents as records, checked and rendered into a site."""


def __getattr__(name: str) -> str:
    # `__version__` on first use: importlib.metadata costs more than a remembered `kb check` (check/memo.py).
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        # The version lives in one place, pyproject.toml; the installed metadata carries it here.
        return version("incident-kb")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree that was never installed
        return "0+unknown"
