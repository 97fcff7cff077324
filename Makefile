# Two commands for a fresh machine: `make serve` and `make test`. Everything else is installed here.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
ADDR ?= 127.0.0.1:8000
# Upstream's notices (Material's end of life, ProperDocs' MkDocs-2 warning), silenced for this
# repository's own commands: docs/reference/adopting.md says what they say. The plugin silences only MkDocs'
# warning about dirty builds, under its live preview (which keeps the site whole).
export DISABLE_MKDOCS_2_WARNING := true
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve site test test-fast test-lowest lint check install schemas clean wheel

# Reinstall when the project's dependencies change. constraints.txt holds the versions the suite was
# run with (so CI tests what was tested); pyproject.toml the ranges an adopter may install.
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# The lowest versions admitted (Material 9.7.x, as Backstage TechDocs pins it): constraints-lowest.txt.
LOWEST := .venv-lowest
$(LOWEST)/.installed-stamp: pyproject.toml constraints-lowest.txt
	$(PYTHON) -m venv $(LOWEST)
	$(LOWEST)/bin/python -m pip install --quiet --upgrade pip
	$(LOWEST)/bin/python -m pip install --quiet -c constraints-lowest.txt -e '.[test]'
	touch $@

# Validate the records (findings are shown, not fatal: the site is where people see them), then
# build and serve the site, rebuilding on every change under knobs/, incidents/ and docs/.
# --dirty: a save rebuilds only the pages it touched (the incident-kb plugin keeps the nav, tags and
# search whole, so MkDocs' warning about dirty builds does not apply, and the plugin leaves it out of
# the log); --no-strict: a warning while editing (a broken link) shows in the log instead of
# stopping the preview.
serve: $(STAMP)
	-$(BIN)/kb check
	$(BIN)/mkdocs serve --dirty --no-strict --dev-addr $(ADDR)

# Build the site into site/ the way CI would (strict: a broken link fails; findings do not).
site: $(STAMP)
	$(BIN)/mkdocs build --strict

# The suite's own processes (hundreds of `kb` runs, git hooks) find the package's bytecode cached
# (__pycache__ is gitignored): where the environment sets PYTHONDONTWRITEBYTECODE, every `kb` process
# compiled the whole package again: over a quarter of the CPU time of the tests that run the command.
CACHED_BYTECODE := env -u PYTHONDONTWRITEBYTECODE
# The tests' temporary files in RAM where there is room (tests/tmp_in_ram.sh says why: on this project's
# file system, creating files after deleting many took 7% of test-fast's CPU, a third of some files').
IN_RAM := sh tests/tmp_in_ram.sh
PYTEST := $(IN_RAM) $(CACHED_BYTECODE) $(BIN)/python -m pytest

# The whole suite on every core (`-n auto`: one worker more than cores, see tests/conftest.py); a
# file's tests stay on one worker (--dist loadfile: a file's own module-scoped builds are made once,
# and timing tests are not split; the seed's shared sites are built once a run, tests/site_support.py,
# and the venvs once a checkout, under .cache/). A file is
# the unit of balance, so a long test that shares nothing has a file of its own (the deep property
# tests: tests/check/test_properties_deeper_*.py) rather than running after the rest on one worker.
test: $(STAMP)
	$(PYTEST) -n auto --dist loadfile

# The whole suite on the lowest versions admitted; CI runs it after `make test` (the highest), so both
# ends of what pyproject.toml admits are tested (the contract tests check Material's private state and
# copied partials on each).
test-lowest: $(STAMP) $(LOWEST)/.installed-stamp
	$(IN_RAM) $(CACHED_BYTECODE) $(LOWEST)/bin/python -m pytest -n auto --dist loadfile

# The everyday loop: everything but real site builds, the browser, serve, fresh venvs, mypy, ruff, bulk
# runs of the real command and all but one case of each heavy cached-equals-cold matrix (tests marked
# slow), on every core.
test-fast: $(STAMP)
	$(PYTEST) -m 'not slow' -n auto

# Lint with ruff (the rules are in pyproject.toml's [tool.ruff]); `ruff check --fix` applies its safe fixes.
lint: $(STAMP)
	$(BIN)/ruff check generator bench tests

check: $(STAMP)
	$(BIN)/kb check

# Regenerate the committed JSON Schemas after changing generator/incident_kb/records/schema.py.
schemas: $(STAMP)
	$(BIN)/kb schema knob > schemas/knob.schema.json
	$(BIN)/kb schema incident > schemas/incident.schema.json

# A wheel of this checkout (dist/incident_kb-VERSION-py3-none-any.whl), to install incident-kb where the
# checks run: `kb init` copies it into the knowledge base and the workflow installs it (README: "Adopt in
# five minutes").
# Built from a clean build/ folder: setuptools packs whatever an old one holds.
wheel:
	rm -rf build dist
	$(PYTHON) -m pip wheel --quiet --no-deps --wheel-dir dist .
	rm -rf build

clean:
	rm -rf $(VENV) $(LOWEST) site .pytest_cache .cache build dist
