# The commands a newcomer needs. Everything runs in .venv, made on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
RUNNER := $(VENV)/.run-stamp

.PHONY: test run demo bench bench-distribution bench-record lint typecheck fmt clean fuzz

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade "pip>=25.1"
	$(PY) -m pip install --quiet --disable-pip-version-check --group dev -e .
	touch $(STAMP)

# What the main job needs alone: the package and its cli extra (rich).
$(RUNNER): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[cli]"
	touch $(RUNNER)

test: lint typecheck  ## ruff, mypy --strict, then pytest
	$(PY) -m pytest

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

typecheck: $(STAMP)
	$(PY) -m mypy

# The main job, on 300 real requests shipped in tests/data/bulk (see its README):
# an OpenAI batch input file and a fine-tuning file, converted to Anthropic and
# Gemini, then validated. Output goes to build/run/. convert writes only records
# the target accepts; the two lines of each file a provider would refuse (one
# opens with an assistant message, one holds a system message alone) go to the
# .problems.jsonl file beside the output, with their line and rule, and convert
# exits 1 for them: make says so and goes on. validate then checks what was
# written, and must find nothing.
BULK := tests/data/bulk
OUT  := build/run
CC   := $(PY) -m chatcodec
REFUSED = || echo "(refused records are listed in $(1): make run goes on)"

run: $(RUNNER)  ## the main job on data shipped in the repository (installs the cli extra only)
	@mkdir -p $(OUT)
	$(CC) stats $(BULK)/openai-batch-input.jsonl
	$(CC) convert --from openai --to anthropic $(BULK)/openai-batch-input.jsonl \
		$(OUT)/anthropic-batch.jsonl --model claude-sonnet-4-5 --max-tokens 1024 \
		--errors $(OUT)/anthropic-batch.problems.jsonl \
		$(call REFUSED,$(OUT)/anthropic-batch.problems.jsonl)
	$(CC) convert --from openai --to gemini $(BULK)/openai-batch-input.jsonl \
		$(OUT)/gemini-batch.jsonl --errors $(OUT)/gemini-batch.problems.jsonl \
		$(call REFUSED,$(OUT)/gemini-batch.problems.jsonl)
	$(CC) convert --from openai --to anthropic $(BULK)/openai-finetune.jsonl \
		$(OUT)/anthropic-finetune.jsonl.gz --model claude-sonnet-4-5 --max-tokens 1024 \
		--errors $(OUT)/anthropic-finetune.problems.jsonl \
		$(call REFUSED,$(OUT)/anthropic-finetune.problems.jsonl)
	$(CC) convert --from openai --to gemini $(BULK)/openai-finetune.jsonl \
		$(OUT)/gemini-finetune.jsonl.gz --errors $(OUT)/gemini-finetune.problems.jsonl \
		$(call REFUSED,$(OUT)/gemini-finetune.problems.jsonl)
	$(CC) validate --from anthropic $(OUT)/anthropic-batch.jsonl --quiet
	$(CC) validate --from gemini $(OUT)/gemini-batch.jsonl --quiet
	$(CC) validate --from anthropic $(OUT)/anthropic-finetune.jsonl.gz --quiet
	$(CC) validate --from gemini $(OUT)/gemini-finetune.jsonl.gz --quiet
	@echo "make run: the output is in $(OUT)/"

demo: $(STAMP)  ## the bundled sample transcript through every step of the codec
	$(CC) demo

bench: $(STAMP)  ## the pyperf suite into perf/results/ (QUICK=1: every scenario in minutes)
	QUICK=$(QUICK) $(PY) perf/run.py

bench-distribution: $(STAMP)  ## every recorded request converted to every family (QUICK=1: in a minute)
	nice -n 10 $(PY) perf/bench_distribution.py $(if $(filter 1,$(QUICK)),--quick)

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
