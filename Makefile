# packlab — `make lab` serves the course, `make test` runs every test.
# Each target builds .venv first when it is missing or older than pyproject.toml or this file.

PYTHON ?= python3

# Python keeps its compiled modules (__pycache__, which .gitignore lists) for the course's own
# code, whatever the machine's image says: an image that sets PYTHONDONTWRITEBYTECODE=1 (this
# one does) makes every process compile the course's modules again, and pytest rewrite every
# test module again (collecting the suite took 10.1 CPU-s each time, 6.2 with them kept).
export PYTHONDONTWRITEBYTECODE :=
VENV   := .venv
BIN    := $(VENV)/bin
READY  := $(VENV)/.ready
PROXY  := hub/node_modules/.ready
HUB_PORT ?= 8000

.PHONY: lab test lint release bench clean demo slides book student hub

# The venv leaves out rfc3987-syntax, an extra of jsonschema that Jupyter's events ask for: it
# builds a grammar each time it is imported, 1.4 s of CPU in every process that reads a notebook
# (nbgrader, alembic, Jupyter servers, packlab grade), only to check the "iri" string format,
# which no schema here uses. Likewise the extra's other format checkers that nothing else needs
# (durations, with arrow; colours; host names; URI templates; JSON pointers): together another
# 35 ms in each of those processes, for formats no schema here uses. Without them jsonschema
# leaves those formats unchecked and `pip check` finds nothing broken. (The hub's runtime leaves
# out all of them, `FORMAT_CHECKERS`; the `packlab` command skips rfc3987-syntax too.)
FORMAT_EXTRAS := rfc3987-syntax isoduration arrow webcolors fqdn uri-template jsonpointer
#
# A new venv first gets a current pip and uv, and uv installs the course: the same packages as
# pip (the same `pip freeze`, uv aside) in 24-38 s instead of 53 on two cores, compiled as pip
# compiles them (`--compile-bytecode`), so the first `make lab` or `make test` waits half as long.
# uv trusts the system's certificates, as pip does here (`--native-tls`). Where uv cannot be had
# or cannot install, pip installs the same packages, slower, and says so. A current pip, not the
# 23.2 that `venv` bundles, is for the tests' student install, which installs the learners' copy
# with pip, as a learner does; pip also repeats setuptools' warnings about the data folders that
# pyproject.toml lists as package data: --quiet twice keeps to errors.
PIP := $(BIN)/python -m pip --disable-pip-version-check
$(READY): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	test -x $(BIN)/uv || $(PIP) install --quiet --upgrade pip uv || \
		echo "make: pip could not install uv; the course is installed with pip (slower)" >&2
	if test -x $(BIN)/uv && $(BIN)/uv pip --quiet --native-tls install --python $(BIN)/python \
		--compile-bytecode -e '.[dev]'; then :; else \
		echo "make: installing the course with pip (slower), not uv" >&2; \
		$(PIP) install --quiet --quiet -e '.[dev]'; fi
	$(PIP) uninstall --quiet --yes $(FORMAT_EXTRAS)
	$(PIP) check --quiet
	touch $(READY)

# JupyterHub's proxy (configurable-http-proxy) from npm, as hub/package-lock.json pins it.
$(PROXY): hub/package.json hub/package-lock.json
	npm ci --prefix hub --no-audit --no-fund --loglevel=error
	touch $(PROXY)

## The class's JupyterHub on HUB_PORT (default 8000), as root: see docs/jupyterhub.md.
hub: $(READY) $(PROXY)
	HUB_PORT=$(HUB_PORT) $(BIN)/packlab hub serve

## Serve JupyterLab at the course start page (JUPYTER_PORT, JUPYTER_TOKEN honoured).
lab: $(READY)
	$(BIN)/packlab lab

## The workshop: the presenter's notebook in JupyterLab, big fonts, widgets ready, speaker notes.
demo: $(READY)
	$(BIN)/packlab demo

## Static reveal.js slides of every lesson, executed, every asset local: book/_build/slides/.
slides: $(READY)
	$(BIN)/python -m packlab.course.slides

## The HTML book (lessons executed, exercises as released, offline) in book/_build/html.
book: $(READY)
	$(BIN)/python -m packlab.course.book book

# One test worker more than the machine has cores: many tests wait on a browser, a server or a
# kernel, and the spare worker fills a core while they do (on 2 cores: 11 min 42 s with 3
# workers against 12 min 47 s to 14 min 39 s with 2, the same tree, a quiet machine).
WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))

## Lint, then run the whole test suite on every core (WORKERS test processes).
test: $(READY) $(PROXY)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadgroup --no-loadscope-reorder --durations=25

## Regenerate exercises/ from solutions/ with nbgrader (never edit exercises/ by hand).
release: $(READY)
	$(BIN)/packlab release

## The student install in build/student/: no solutions, hidden tests or galleries (pip install -e it).
student: $(READY)
	$(BIN)/packlab student-build build/student

## Speed figures for book/speed.md (not a test), and the full parity comparison with nbgrader.
bench: $(READY)
	$(BIN)/python benchmarks/widgets.py
	$(BIN)/python benchmarks/slider.py
	$(BIN)/python benchmarks/sandbox.py
	$(BIN)/python benchmarks/check.py
	$(BIN)/python benchmarks/parity.py

clean:
	rm -rf $(VENV) book/_build .pytest_cache .ruff_cache .hypothesis
