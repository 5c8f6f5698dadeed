# The commands a newcomer needs. Everything runs in .venv, made on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: test run demo bench bench-record lint typecheck fmt clean fuzz

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

# The main job, on 300 real requests shipped in tests/data/bulk (see its README):
# an OpenAI batch input file and a fine-tuning file, converted to Anthropic and
# Gemini, then validated. Output goes to build/run/. A record a provider would
# refuse is reported by validate, with its line and rule, and make goes on.
BULK := tests/data/bulk
OUT  := build/run
CC   := $(PY) -m chatcodec
FOUND := (the records above would be refused by the provider: make run goes on)

run: $(STAMP)  ## the main job on data shipped in the repository
	@mkdir -p $(OUT)
	$(CC) stats $(BULK)/openai-batch-input.jsonl
	$(CC) convert --from openai --to anthropic $(BULK)/openai-batch-input.jsonl \
		$(OUT)/anthropic-batch.jsonl --max-tokens 1024 --errors $(OUT)/anthropic-batch.problems.jsonl
	$(CC) convert --from openai --to gemini $(BULK)/openai-batch-input.jsonl \
		$(OUT)/gemini-batch.jsonl --errors $(OUT)/gemini-batch.problems.jsonl
	$(CC) convert --from openai --to anthropic $(BULK)/openai-finetune.jsonl \
		$(OUT)/anthropic-finetune.jsonl.gz --model claude-sonnet-4-5 --max-tokens 1024
	$(CC) convert --from openai --to gemini $(BULK)/openai-finetune.jsonl \
		$(OUT)/gemini-finetune.jsonl.gz
	$(CC) validate --from anthropic $(OUT)/anthropic-batch.jsonl || echo "$(FOUND)"
	$(CC) validate --from gemini $(OUT)/gemini-batch.jsonl || echo "$(FOUND)"
	$(CC) validate --from anthropic $(OUT)/anthropic-finetune.jsonl.gz || echo "$(FOUND)"
	$(CC) validate --from gemini $(OUT)/gemini-finetune.jsonl.gz || echo "$(FOUND)"

demo: $(STAMP)  ## the bundled sample transcript through every step of the codec
	$(CC) demo

bench: $(STAMP)  ## the pyperf suite into perf/results/ (QUICK=1: every scenario in minutes)
	QUICK=$(QUICK) $(PY) perf/run.py

bench-record: $(STAMP)  ## the suite, then publish it: perf/recorded/, perf/charts/, the READMEs
	QUICK=$(QUICK) $(PY) perf/run.py --record

FUZZ_SECONDS ?= 60
FUZZ_ARGS    ?=  # e.g. --smoke (a few seconds each), or target names
fuzz: $(STAMP)  ## every fuzz target for FUZZ_SECONDS each; crashers go to .fuzz/crashes/
	$(PY) -m pip install --quiet --disable-pip-version-check --group fuzz
	$(PY) tests/fuzz/runner.py --seconds $(FUZZ_SECONDS) $(FUZZ_ARGS)

fmt: $(STAMP)
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis build .fuzz
