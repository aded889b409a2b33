# Two entry points: `make demo` (score the bundled reference submissions) and
# `make test` (set up and run the whole test suite). Both create .venv if absent.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.agrieval-installed

.PHONY: demo test test-runtime platform-venvs bench clean-venv

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[all]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/agrieval demo

# The whole suite on this Python, then the grading runtime's own tests under every interpreter of
# .ci/interpreters (the grading platforms' Pythons, numpy only), each in its own venv.
test: $(STAMP) platform-venvs
	AGRIEVAL_REQUIRE_PLATFORMS=1 $(BIN)/python -m pytest -q -p no:cacheprovider
	$(MAKE) --no-print-directory test-runtime

platform-venvs:
	scripts/platform_venvs.sh

test-runtime: platform-venvs
	@for venv in .venv-platforms/*/; do \
		echo "== tests/runtime under $$venv"; \
		PYTHONPATH=$(CURDIR) $$venv/bin/python -m pytest -q -p no:cacheprovider tests/runtime || exit 1; \
	done

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_scoring.py
	$(BIN)/python benchmarks/bench_catalog.py
	$(BIN)/python benchmarks/bench_train.py
	$(BIN)/python benchmarks/bench_tiling.py

clean-venv:
	rm -rf $(VENV) .venv-platforms
