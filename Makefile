# Two commands on a fresh machine: `make test` and `make demo`. Each sets up .venv itself.
# `make docs` builds the docs site into site/ (`make test` builds it too, and runs its examples).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# A portable llama.cpp build: no -march=native, so the wheel pip caches runs on any x86-64.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF

.PHONY: test demo docs lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

$(VENV)/.demo-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[demo]"
	touch $@

# The report test opens the HTML report in headless Chromium: Debian's package, installed once.
$(VENV)/.browser-installed: | $(BIN)/python
	test -x /usr/bin/chromium || { apt-get update && apt-get install -y chromium; }
	touch $@

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/mypy src
	$(BIN)/lint-imports

# One worker per core, each pinned to its core (tests/conftest.py), handed whole files, the
# longest first: the suite in about half the time of one process on two cores.
test: lint $(VENV)/.browser-installed
	$(BIN)/pytest --numprocesses logical --dist loadscope --no-loadscope-reorder

docs: $(VENV)/.dev-installed
	$(BIN)/mkdocs build --strict

demo: $(VENV)/.demo-installed
	bash examples/demo.sh

clean:
	rm -rf $(VENV) runs/demo site
