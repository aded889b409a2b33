# Two entry points: `make demo` (score the bundled reference submissions; installs the scoring kit only,
# about 340 MB) and `make test` (installs every extra the tests need, torch included, about 6.2 GB, and runs
# the whole suite). Both create .venv if absent; `make test` after `make demo` adds the extras.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SCORING := $(VENV)/.agrieval-scoring
ALL := $(VENV)/.agrieval-all
BENCH := $(VENV)/.agrieval-bench

.PHONY: demo test test-runtime platform-venvs slurm browser bench magick clean-venv

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# setuptools tells every editable install of a package-dir layout to mind same-named folders (a UserWarning
# banner from the build backend, which --quiet does not hide): silenced here only; tests/packaging builds the wheel
# with every warning shown. setuptools' editable install is an import hook that mypy, pyright and IDEs do not run:
# scripts/static_editable.py adds a plain path entry beside it (folder links, so new modules need no reinstall).
QUIET_BUILD := PYTHONWARNINGS=ignore::UserWarning

$(SCORING): pyproject.toml constraints.txt | $(VENV)/bin/python
	$(QUIET_BUILD) $(BIN)/python -m pip install --quiet -c constraints.txt -e .
	$(BIN)/python scripts/static_editable.py
	touch $(SCORING)

$(ALL): pyproject.toml constraints.txt | $(VENV)/bin/python
	$(QUIET_BUILD) $(BIN)/python -m pip install --quiet -c constraints.txt -e '.[all]'
	$(BIN)/python scripts/static_editable.py
	touch $(SCORING) $(ALL)

demo: $(SCORING)
	@$(BIN)/agrieval demo
	@echo
	@echo "next: put agrieval on your PATH in this shell with   . $(VENV)/bin/activate"
	@echo "      then try   agrieval --help   (the extras: pip install -e '.[data]', '.[baselines]', '.[plots]')"

# Where this is root with apt-get (CI, a fresh Debian machine), a one-node SLURM is installed and started for the
# tests that submit the generated job scripts, and those tests must pass; elsewhere (a laptop) they skip and say
# how to start one. Set AGRIEVAL_REQUIRE_SLURM=1 or 0 to decide yourself (0 as root: nothing is installed).
CAN_SLURM := $(shell [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && echo 1 || echo 0)
AGRIEVAL_REQUIRE_SLURM ?= $(CAN_SLURM)
# Likewise headless Chromium (Debian's package) for the tests that open the pages the kit writes (tests/browser.py):
# installed where this is root with apt-get (the same condition), and then those tests must pass; elsewhere they skip
# (AGRIEVAL_REQUIRE_BROWSER=0 as root: nothing is installed).
export AGRIEVAL_REQUIRE_BROWSER ?= $(CAN_SLURM)

# ruff (pyflakes and isort, as pyproject.toml's [tool.ruff] sets them), the whole suite on this Python, then the
# grading runtime's own tests under every interpreter of .ci/interpreters (the grading platforms' Pythons, numpy
# only), each in its own venv. Each phase prints its wall time, then the total. The suite runs on pytest-xdist workers, one per CPU (TEST_WORKERS=0: in this
# process); the tests that share something run in one worker (the groups of tests/conftest.py).
TEST_WORKERS ?= auto
PHASE = scripts/timed_phase.sh
test:
	@start=$$(date +%s); \
	$(PHASE) install $(MAKE) --no-print-directory $(ALL) && \
	$(PHASE) ruff $(BIN)/ruff check . && \
	$(PHASE) "platform venvs" $(MAKE) --no-print-directory platform-venvs && \
	$(PHASE) slurm $(MAKE) --no-print-directory slurm && \
	$(PHASE) browser $(MAKE) --no-print-directory browser && \
	$(PHASE) suite env AGRIEVAL_REQUIRE_PLATFORMS=1 AGRIEVAL_REQUIRE_SLURM=$(AGRIEVAL_REQUIRE_SLURM) \
		$(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadgroup && \
	$(MAKE) --no-print-directory test-runtime && \
	echo "== make test: all phases passed in $$(( $$(date +%s) - start )) s"

platform-venvs:
	scripts/platform_venvs.sh

slurm:
	@if [ "$(AGRIEVAL_REQUIRE_SLURM)" != 1 ]; then echo "note: SLURM is not set up (AGRIEVAL_REQUIRE_SLURM=$(AGRIEVAL_REQUIRE_SLURM); as root with apt-get, scripts/slurm/up.sh installs and starts it): the tests that submit job scripts skip unless a SLURM already answers here"; \
	elif [ "$(CAN_SLURM)" = 1 ]; then scripts/slurm/up.sh; \
	else echo "error: AGRIEVAL_REQUIRE_SLURM=1 but SLURM cannot be installed here (scripts/slurm/up.sh needs root and apt-get)" >&2; exit 1; fi

BROWSER_PACKAGE := chromium
browser:
	@if command -v $(BROWSER_PACKAGE) >/dev/null; then echo "$(BROWSER_PACKAGE): $$(command -v $(BROWSER_PACKAGE))"; \
	elif [ "$(AGRIEVAL_REQUIRE_BROWSER)" != 1 ]; then echo "note: Chromium is not set up (AGRIEVAL_REQUIRE_BROWSER=$(AGRIEVAL_REQUIRE_BROWSER)): the tests that open the kit's pages in a browser will skip"; \
	elif [ "$(CAN_SLURM)" = 1 ]; then export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y --no-install-recommends $(BROWSER_PACKAGE) >/dev/null \
		|| { apt-get update >/dev/null && apt-get install -y --no-install-recommends $(BROWSER_PACKAGE) >/dev/null; }; \
	elif [ "$(AGRIEVAL_REQUIRE_BROWSER)" = 1 ]; then echo "error: AGRIEVAL_REQUIRE_BROWSER=1 but Chromium cannot be installed here (needs root and apt-get)" >&2; exit 1; \
	else echo "note: no Chromium here (installing it needs root and apt-get): the tests that open the kit's pages in a browser will skip"; fi

# The runtime's own tests, the top of tests/scoring/runtime/: those of its subpackages (reading/, metrics/) take
# scikit-learn and the authoring side as oracles, and run in the suite.
RUNTIME_TESTS := tests/scoring/runtime --ignore=tests/scoring/runtime/reading --ignore=tests/scoring/runtime/metrics
test-runtime: platform-venvs
	@for venv in .venv-platforms/*/; do \
		$(PHASE) "runtime under $$venv" env PYTHONPATH=$(CURDIR) $$venv/bin/python -m pytest -q -p no:cacheprovider \
			$(RUNTIME_TESTS) || exit 1; \
	done

$(BENCH): $(ALL)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[all,bench]'
	touch $(BENCH)

bench: $(BENCH)
	$(BIN)/python benchmarks/bench_scoring.py
	$(BIN)/python benchmarks/bench_catalog.py
	$(BIN)/python benchmarks/bench_train.py
	$(BIN)/python benchmarks/bench_tiling.py

# ImageMagick for `--resize-backend wand` (the PlantCLEF 2025 winner's resize): the system MagickWand library
# (Debian/Ubuntu package; needs root) and the `magick` extra. Not part of `make test`: the Wand test skips
# without it, and PIL's Lanczos is the default backend.
magick: $(SCORING)
	@command -v apt-get >/dev/null || { echo "error: no apt-get here: install ImageMagick's MagickWand library (6 or 7) with your system's package manager, then: $(BIN)/python -m pip install -e '.[magick]'" >&2; exit 1; }
	apt-get install -y libmagickwand-6.q16-6 || { apt-get update && apt-get install -y libmagickwand-6.q16-6; }
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[magick]'
	$(BIN)/python -c "import wand.image, wand.version; print('Wand', wand.version.VERSION, 'with', wand.version.MAGICK_VERSION)"

clean-venv:
	rm -rf $(VENV) .venv-platforms
