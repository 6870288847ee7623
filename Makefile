# Every target works on a fresh machine with only python3: the venv is made on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo lint test soak bench screenshots mutate install clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/vap --sandbox

# Lint and type-check before the tests (configured in pyproject.toml): a new finding fails `make test`.
# mypy keeps its cache in .mypy_cache, so a run after a small change takes seconds.
lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

# One pytest worker per core (pytest-xdist): tests mostly await the console's states, so a single
# process leaves a 2-core machine half idle (measured: 8 min 41 s serial, user time 4 min 53 s).
# worksteal: an idle worker takes half of another's queue, and the tests marked slow start first
# on every worker (tests/conftest.py), so the run does not end waiting on one long test.
# Two workers a core: with one a core the two cores were busy 63 % of a quiet run (user 19 min
# 52 s in 15 min 39 s), the rest waiting on sockets, subprocesses and timers. On this 2-core
# machine, quiet: 2 workers 15 min 38 s, 3 workers 12 min 10 s, 4 workers 10 min 59 s.
WORKERS ?= $(shell $(PYTHON) -c 'import os; print(2 * (os.cpu_count() or 1))')
test: lint
	scripts/test -n $(WORKERS) --dist worksteal

# The random-input test for far longer: SOAK_EVENTS events (50,000 by default), a new seed each run
# unless MONKEY_SEED is given; the seed is printed first, and a failure is shrunk and replayable.
# Then Schemathesis against the sandbox with FUZZ_EXAMPLES (300) examples per operation and key.
soak: $(STAMP)
	$(BIN)/python -m tests.tui.monkey soak
	$(BIN)/python -m tests.sandbox.fuzz $${FUZZ_EXAMPLES:-300}

# Mutation testing of the money-and-keys core (scripts/mutate.toml lists the modules and their
# tests): a table of module | mutants | caught %. Not part of `make test`: ~15 minutes on 2 cores.
mutate: $(STAMP)
	$(BIN)/python scripts/mutate

bench: $(STAMP)
	$(BIN)/python -m bench

screenshots: $(STAMP)
	$(BIN)/python -m tests.tui.screenshots
	VAP_SCREENSHOTS=1 scripts/test -q tests/e2e/test_web.py -k numbers_then_tools

clean:
	rm -rf $(VENV) build dist src/*.egg-info
