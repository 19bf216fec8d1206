# Two set-up commands: `make demo` and `make test`. Both create .venv from requirements.lock first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test unit check lab bench fuzz triage-table captures fixtures notebooks postmortem lock clean

# pip's own progress is shown (no --quiet): the first build downloads and installs about 150 packages.
$(STAMP): requirements.lock pyproject.toml
	@echo "== building $(VENV)/ with $$($(PYTHON) --version 2>&1): pip, the $$(grep -c '^[A-Za-z0-9]' requirements.lock) packages pinned in requirements.lock, then this toolkit (editable) =="
	@echo "== this takes a few minutes the first time (about 3.5 on a fresh machine, most of it downloading; under a minute from pip's cache); later runs reuse $(VENV)/ =="
	$(PYTHON) -m venv $(VENV)
	@date +%s > $(VENV)/.build-started
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install -r requirements.lock
	$(BIN)/pip install --no-deps -e .
	touch $(STAMP)
	@echo "== $(VENV)/ is ready after $$(( $$(date +%s) - $$(cat $(VENV)/.build-started) )) s =="

# The published DSH 0.1.0-rc.8 run headless by the lab (lab/run.py --dsh): the settings file it was given, the HAR
# of its traffic and the session log it wrote, all from the same run.
BEFORE := --settings data/dsh-before-fix/settings.yaml --capture data/dsh-before-fix/capture.har --session data/dsh-before-fix/session.jsonl.zstd --dsh 0.1.0-rc.8
AFTER := --settings data/dsh-after-fix/settings.yaml --capture data/dsh-after-fix/capture.har --session data/dsh-after-fix/session.jsonl.zstd --dsh 0.1.0-rc.8

# The main job: the four-layer verdict before the fix (exits 1, naming the failing layers) and after it (exits 0).
demo: $(STAMP)
	@echo "== before the fix: expected to fail ==" && echo
	@$(BIN)/agent-contract verify $(BEFORE); test $$? -eq 1
	@$(BIN)/agent-contract verify $(BEFORE) --format html --out reports/before-fix.html; test $$? -eq 1
	@echo && echo "== after the fix: expected to pass ==" && echo
	@$(BIN)/agent-contract verify $(AFTER)
	@$(BIN)/agent-contract verify $(AFTER) --format html --out reports/after-fix.html
	@echo && echo "HTML reports: reports/before-fix.html, reports/after-fix.html"

test: $(STAMP) lab/client/node_modules/.installed lab/dsh-fixtures/node_modules/.installed browser
	node lab/client/selftest.mjs
	AGENT_CONTRACT_LANG= $(BIN)/python -m pytest tests $(wildcard notebooks/*.ipynb notebooks/zh-CN/*.ipynb) $(if $(wildcard notebooks/*.ipynb notebooks/zh-CN/*.ipynb),--nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg,)

# The Python tests alone, for contributors: no node, no browser, no notebooks.
unit: $(STAMP)
	$(BIN)/python -m pytest tests --ignore=tests/e2e -q

# Lint, format and types (ruff and mypy, configured in pyproject.toml).
check: $(STAMP)
	$(BIN)/ruff check toolkit tests lab notebooks
	$(BIN)/ruff format --check toolkit tests lab notebooks
	$(BIN)/mypy

# The browser test (tests/e2e) drives the system Chromium; install it with apt-get when run as root.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "chromium not found: installing it with apt-get (needed by tests/e2e)"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	else \
		echo "error: chromium is not on PATH and the browser test (tests/e2e) needs it." >&2; \
		echo "Install it with: sudo apt-get update && sudo apt-get install -y chromium  (or run 'make browser' as root)" >&2; \
		exit 1; \
	fi

# Re-execute every notebook from its .py source, in English (notebooks/) and in Chinese (notebooks/zh-CN/),
# and store the outputs nbval compares.
notebooks: $(STAMP)
	$(BIN)/python notebooks/build.py

# The postmortem template (notebooks/06_postmortem) rendered to one self-contained HTML file per language:
# reports/postmortem.html and reports/postmortem.zh-CN.html.
postmortem: $(STAMP)
	$(BIN)/python notebooks/render_postmortem.py
	$(BIN)/python notebooks/render_postmortem.py --lang zh-CN

# JupyterLab on notebooks/. Jupyter refuses to start as root without --allow-root (as in a container; the browser
# target handles root too). notebooks/.jupyter adds a save hook: a built notebook is saved with the metadata the
# build stores, so opening one leaves git status clean (notebooks/build.py, lab_pre_save).
LAB_ALLOW_ROOT = $(if $(filter 0,$(shell id -u)),--allow-root)
lab: $(STAMP)
	JUPYTER_CONFIG_PATH="$(CURDIR)/notebooks/.jupyter$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" $(BIN)/jupyter lab notebooks/ $(LAB_ALLOW_ROOT)

bench: $(STAMP)
	$(BIN)/python tests/benchmarks/ingest.py $(BENCH_ARGS)

# A seeded mutation fuzz campaign over every reader (tests/fuzz_readers.py; FUZZ_ARGS="--seed 2 --seconds 60").
fuzz: $(STAMP)
	$(BIN)/python tests/fuzz_readers.py $(FUZZ_ARGS)

# README's triage coverage table, generated from tests/corpus/triage/ (tests/test_triage_coverage.py checks it).
triage-table: $(STAMP)
	$(BIN)/python -m toolkit.analysis.triage_coverage --readme

# Rebuild data/ with the incident lab (real pi-ai through mitmproxy to the stub gateway, 127.0.0.1 only).
# Needs node and npm; not part of `make test`.
MITM_VENV := lab/.venv-mitm
# LiteLLM's proxy as the gateway of the litellm-* scenarios (lab/litellm-proxy/config.yaml; no database).
LITELLM_PROXY_VENV := lab/.venv-litellm-proxy
captures: $(STAMP) $(MITM_VENV)/.installed $(LITELLM_PROXY_VENV)/.installed lab/client/node_modules/.installed lab/dsh-headless/node_modules/.installed
	$(BIN)/python lab/run.py
	$(BIN)/python lab/run.py --dsh
	$(BIN)/python lab/record_experiment.py

$(LITELLM_PROXY_VENV)/.installed: lab/requirements-litellm-proxy.txt
	$(PYTHON) -m venv $(LITELLM_PROXY_VENV)
	$(LITELLM_PROXY_VENV)/bin/pip install --quiet -r lab/requirements-litellm-proxy.txt
	touch $@

# The OpenAI Agents SDK, only to record what its strict-schema transform does (tests/fixtures/agents_sdk).
AGENTS_VENV := lab/.venv-agents
$(AGENTS_VENV)/.installed: lab/requirements-agents.txt
	$(PYTHON) -m venv $(AGENTS_VENV)
	$(AGENTS_VENV)/bin/pip install --quiet -r lab/requirements-agents.txt
	touch $@

# LiteLLM as a client library, only to record the tools it sends (tests/fixtures/litellm).
LITELLM_VENV := lab/.venv-litellm
$(LITELLM_VENV)/.installed: lab/requirements-litellm.txt
	$(PYTHON) -m venv $(LITELLM_VENV)
	$(LITELLM_VENV)/bin/pip install --quiet -r lab/requirements-litellm.txt
	touch $@

# Re-record what the real pi-ai does with tool definitions (tests/fixtures/pi_ai) and what the real DSH 0.1.0-rc.8
# decides for tool calls, settings files and images (tests/fixtures/dsh); not part of `make test`.
fixtures: lab/client/node_modules/.installed lab/dsh-fixtures/node_modules/.installed lab/ai-sdk-fixtures/node_modules/.installed $(AGENTS_VENV)/.installed $(LITELLM_VENV)/.installed
	node lab/pi-ai-fixtures/generate.mjs --out tests/fixtures/pi_ai
	node lab/pi-ai-fixtures/check.mjs --dir tests/fixtures/pi_ai
	node lab/dsh-fixtures/generate.mjs --out tests/fixtures/dsh
	node lab/dsh-fixtures/config.mjs --out tests/fixtures/dsh
	node lab/dsh-fixtures/capability.mjs --out tests/fixtures/dsh
	$(AGENTS_VENV)/bin/python lab/record_agents_strict.py --out tests/fixtures/agents_sdk
	$(AGENTS_VENV)/bin/python lab/record_agents_tools.py --out tests/fixtures/agents_sdk
	$(LITELLM_VENV)/bin/python lab/record_litellm_tools.py --out tests/fixtures/litellm
	$(LITELLM_VENV)/bin/python lab/record_litellm_config.py --out tests/fixtures/litellm
	node lab/ai-sdk-fixtures/generate.mjs --out tests/fixtures/ai_sdk
	$(BIN)/python lab/record_codex_tools.py --out tests/fixtures/codex

$(MITM_VENV)/.installed: lab/requirements-mitm.txt
	$(PYTHON) -m venv $(MITM_VENV)
	$(MITM_VENV)/bin/pip install --quiet -r lab/requirements-mitm.txt
	touch $@

lab/client/node_modules/.installed: lab/client/package.json lab/client/package-lock.json
	npm ci --prefix lab/client --no-audit --no-fund
	touch $@

lab/ai-sdk-fixtures/node_modules/.installed: lab/ai-sdk-fixtures/package.json lab/ai-sdk-fixtures/package-lock.json
	npm ci --prefix lab/ai-sdk-fixtures --no-audit --no-fund
	touch $@

lab/dsh-fixtures/node_modules/.installed: lab/dsh-fixtures/package.json lab/dsh-fixtures/package-lock.json
	npm ci --prefix lab/dsh-fixtures --no-audit --no-fund --legacy-peer-deps
	touch $@

# The published DSH CLI run headless as the lab's client (lab/run.py --dsh); see lab/README.md. `npm install`
# with the committed lock, not `npm ci`: npm ci refuses the lock because node-addon-require-builtin@0.1.6 names
# optional platform packages that were never published (darwin, win32, linux-arm64).
lab/dsh-headless/node_modules/.installed: lab/dsh-headless/package.json lab/dsh-headless/package-lock.json
	npm install --prefix lab/dsh-headless --no-audit --no-fund --legacy-peer-deps
	touch $@

# The font the Chinese plot labels are drawn with (toolkit/present/fonts/): the glyphs of the plot texts, subset
# from Debian's fonts-noto-cjk (downloaded with apt-get, no root needed). Run after adding a Chinese plot label.
.PHONY: font
font: $(STAMP)
	$(BIN)/python lab/subset_font.py

# Re-pin every package after changing pyproject.toml dependencies.
lock: $(STAMP)
	$(BIN)/pip install --quiet uv
	$(BIN)/python -m uv pip compile pyproject.toml --extra notebooks --extra test --extra dev --extra scale --extra bench --universal --python-version 3.11 --no-header -o requirements.lock
	sed -i '1i # Every package pinned, so nbval sees the same outputs everywhere. Regenerate with `make lock`.' requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis $(MITM_VENV) $(AGENTS_VENV) $(LITELLM_VENV) $(LITELLM_PROXY_VENV) lab/client/node_modules lab/dsh-fixtures/node_modules lab/ai-sdk-fixtures/node_modules lab/dsh-headless/node_modules lab/.work
