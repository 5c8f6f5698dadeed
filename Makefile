# The commands a newcomer needs. Everything runs in .venv, made on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: test run bench lint typecheck fmt clean fuzz

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade "pip>=25.1"
	$(PY) -m pip install --quiet --disable-pip-version-check --group dev -e .
	touch $(STAMP)

test: lint typecheck  ## ruff, mypy --strict, then pytest
	$(PY) -m pytest

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

typecheck: $(STAMP)
	$(PY) -m mypy

run: $(STAMP)  ## the main job on data shipped in the repository
	$(PY) -m chatcodec

bench: $(STAMP)  ## the pyperf suite; results go to perf/results/
	$(PY) perf/run.py

FUZZ_SECONDS ?= 60
FUZZ_ARGS    ?=  # e.g. --smoke (a few seconds each), or target names
fuzz: $(STAMP)  ## every fuzz target for FUZZ_SECONDS each; crashers go to .fuzz/crashes/
	$(PY) -m pip install --quiet --disable-pip-version-check --group fuzz
	$(PY) tests/fuzz/runner.py --seconds $(FUZZ_SECONDS) $(FUZZ_ARGS)

fmt: $(STAMP)
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis .fuzz
