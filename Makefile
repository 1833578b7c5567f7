# Two commands do all set-up: `make run` and `make test` (see README).
# Python packages come in the versions of constraints.txt (refresh with `make lock`); the system packages
# the window and the tests need are checked (and installed when root or passwordless sudo allow) by
# tools/system-packages.sh.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
FILE   ?=
CONSTRAINTS := constraints.txt
SYSTEM      := tools/system-packages.sh
LOCK_PYTHON ?= python3.11
LOCK_VENV   ?= build/lock-venv

.PHONY: run test lint bench clean
.PHONY: lock

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml $(CONSTRAINTS)
	$(BIN)/pip install -q -c $(CONSTRAINTS) -e .
	# compile the dynamics kernels once, now, so the first torque-driven play does not wait for it
	$(BIN)/python -m mime_gui.multibody._kernels
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml $(CONSTRAINTS)
	$(BIN)/pip install -q -c $(CONSTRAINTS) -e '.[test]'
	# robots written by others, data only (its declared dependencies are the Pinocchio stack, installed above)
	$(BIN)/pip install -q -c $(CONSTRAINTS) --no-deps example-robot-data
	touch $@

run: $(VENV)/.installed
	@bash $(SYSTEM) ensure run
	$(BIN)/mime-gui $(FILE)

# The GUI tests need an X server: run under xvfb-run when there is no display.
test: $(VENV)/.installed-test
	@bash $(SYSTEM) ensure test
	@if [ -z "$$DISPLAY" ] && command -v xvfb-run >/dev/null; then \
		xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python -m pytest $(PYTEST_ARGS); \
	else \
		$(BIN)/python -m pytest $(PYTEST_ARGS); \
	fi

lint: $(VENV)/.installed-test
	$(BIN)/ruff check mime_gui tests benchmarks tools

bench: $(VENV)/.installed-test
	for b in read engine node dynamics probes ik; do $(BIN)/python benchmarks/$$b.py || exit 1; done
	xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python benchmarks/gui.py
	xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python benchmarks/edit.py
	xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python benchmarks/driving.py
	xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python benchmarks/assembly.py
	xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python benchmarks/field.py
	xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python benchmarks/gc_settle.py

# docs/tutorial.md's screenshots: its steps done in the window by tests/app/test_tutorial.py, each shot saved
.PHONY: tutorial-images
tutorial-images: $(VENV)/.installed-test
	MIME_TUTORIAL_IMAGES=$(CURDIR)/docs/images xvfb-run -a -s "-screen 0 1600x1000x24" \
		$(BIN)/python -m pytest -q -p no:cacheprovider tests/app/test_tutorial.py

# constraints.txt: the newest releases pyproject admits, installed in a clean Python 3.11 environment and
# frozen. Run the suite on them (`make clean test`) before committing the new file.
lock:
	rm -rf $(LOCK_VENV)
	$(LOCK_PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install -q --upgrade pip
	$(LOCK_VENV)/bin/pip install -q '.[test]'
	$(LOCK_VENV)/bin/pip install -q --no-deps example-robot-data
	{ echo "# Versions the suite passes on, for Python 3.11 on Linux x86_64. Refresh: make lock"; \
	  $(LOCK_VENV)/bin/pip freeze --all --exclude pip --exclude mime-gui; } > $(CONSTRAINTS)
	rm -rf $(LOCK_VENV)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache

# Mutation testing of the headless core (mutmut, on a deterministic sample; slow, not part of `make test`):
# scores per package and file, surviving mutants listed (docs/mutation.md). MUTATION_ARGS=--per-file 30 …
.PHONY: mutation
mutation: $(VENV)/.installed-test
	rm -rf mutants
	$(BIN)/python tools/mutation_sample.py $(MUTATION_ARGS)
