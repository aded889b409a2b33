# Two entry points: `make demo` (score the bundled reference submissions) and
# `make test` (set up and run the whole test suite). Both create .venv if absent.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.agrieval-installed

.PHONY: demo test bench clean-venv

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[all]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/agrieval demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_scoring.py
	$(BIN)/python benchmarks/bench_catalog.py
	$(BIN)/python benchmarks/bench_train.py
	$(BIN)/python benchmarks/bench_tiling.py

clean-venv:
	rm -rf $(VENV)
