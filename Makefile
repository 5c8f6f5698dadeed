# The commands a newcomer needs. Everything runs in .venv, made on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: test run bench bench-record lint typecheck fmt clean

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

bench: $(STAMP)  ## the pyperf suite into perf/results/ (QUICK=1: every scenario in minutes)
	QUICK=$(QUICK) $(PY) perf/run.py

bench-record: $(STAMP)  ## the suite, then publish it: perf/recorded/, perf/charts/, the READMEs
	QUICK=$(QUICK) $(PY) perf/run.py --record

fmt: $(STAMP)
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
