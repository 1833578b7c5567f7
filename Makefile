# Two commands do all set-up: `make run` and `make test` (see README).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
FILE   ?=

.PHONY: run test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(BIN)/pip install -q -e '.[test]'
	# robots written by others, data only (its declared dependencies are the Pinocchio stack, installed above)
	$(BIN)/pip install -q --no-deps example-robot-data
	touch $@

run: $(VENV)/.installed
	$(BIN)/mime-gui $(FILE)

# The GUI tests need an X server: run under xvfb-run when there is no display.
test: $(VENV)/.installed-test
	@if [ -z "$$DISPLAY" ] && command -v xvfb-run >/dev/null; then \
		xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python -m pytest $(PYTEST_ARGS); \
	else \
		$(BIN)/python -m pytest $(PYTEST_ARGS); \
	fi

lint: $(VENV)/.installed-test
	$(BIN)/ruff check mime_gui tests benchmarks

bench: $(VENV)/.installed-test
	for b in read engine node; do $(BIN)/python benchmarks/$$b.py || exit 1; done
	xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python benchmarks/gui.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache

# Mutation testing of the headless core (mutmut, on a deterministic sample; slow, not part of `make test`):
# scores per package and file, surviving mutants listed (docs/mutation.md). MUTATION_ARGS=--per-file 30 …
.PHONY: mutation
mutation: $(VENV)/.installed-test
	rm -rf mutants
	$(BIN)/python tools/mutation_sample.py $(MUTATION_ARGS)
