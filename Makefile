# packlab — `make lab` serves the course, `make test` runs every test.
# Each target builds .venv first when it is missing or older than pyproject.toml.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
READY  := $(VENV)/.ready

.PHONY: lab test lint release bench clean

$(READY): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(READY)

## Serve JupyterLab at the course start page (JUPYTER_PORT, JUPYTER_TOKEN honoured).
lab: $(READY)
	$(BIN)/packlab lab

## Lint, then run the whole test suite on every core.
test: $(READY)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n auto --dist loadgroup

## Regenerate exercises/ from solutions/ with nbgrader (never edit exercises/ by hand).
release: $(READY)
	$(BIN)/packlab release

## Speed figures for the README (not a test).
bench: $(READY)
	$(BIN)/python benchmarks/widgets.py

clean:
	rm -rf $(VENV) book/_build .pytest_cache .ruff_cache .hypothesis
