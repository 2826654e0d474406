# `make test` and `make run` set up .venv themselves on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: install test lint bench gallery screenshots run clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# the bot and its runtime libraries (make run), and the compiled modules (engine/*.c:
# setup.py; built again when their source changes, skipped where no C compiler is)
$(STAMP): pyproject.toml setup.py $(wildcard engine/*.c engine/*.h) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

# the bot alone, for a server (deploy/README.md): no test, lint or benchmark tools
install: $(STAMP)

# plus the test, lint and benchmark tools (make test)
$(DEV_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV_STAMP)

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# the sources compiled once: where PYTHONDONTWRITEBYTECODE is set, each of the ~100 Python
# processes the suite starts would compile them again (half a second of CPU each); then
# four workers on two cores (many tests wait on processes, databases and sockets), then
# the test that uses the whole machine itself: a fresh clone's own make run and make test,
# minutes long, when PAPERBOARD_FRESH_CLONE=1 (.ci/run sets it; collecting the suite again
# only to skip it would cost every other run 10 s)
test: lint
	$(BIN)/python -m compileall -q -j 0 engine bot tests bench
	$(BIN)/pytest -n 4 -m "not alone"
	@if [ "$$PAPERBOARD_FRESH_CLONE" = 1 ]; then $(BIN)/pytest -m alone; \
	else echo "(the fresh-clone test runs with PAPERBOARD_FRESH_CLONE=1, as .ci/run sets it)"; fi

# every benchmark of bench/table.py's list, each headline written into docs/PERFORMANCE.md's
# table (python -m bench.table bench.render ... runs only those)
bench: $(DEV_STAMP)
	$(BIN)/python -m bench.table

# the README's pictures of the web pages, taken in Debian's chromium (apt-get install chromium)
screenshots: $(DEV_STAMP)
	$(BIN)/python -m bench.web_screenshots docs/img

gallery: $(STAMP)
	$(BIN)/python -m bot.render.gallery docs/img

run: $(STAMP)
	$(BIN)/paperboard run

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
