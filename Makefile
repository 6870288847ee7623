# Every target works on a fresh machine with only python3: the venv is made on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test bench screenshots install clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/vap --sandbox

test: $(STAMP)
	scripts/test

bench: $(STAMP)
	$(BIN)/python -m bench

screenshots: $(STAMP)
	$(BIN)/python -m tests.tui.screenshots

clean:
	rm -rf $(VENV) build dist src/*.egg-info
