# Two set-up commands: `make demo` and `make test`. Both create .venv from requirements.lock first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lab bench lock clean

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/agent-contract summary data/

test: $(STAMP)
	$(BIN)/python -m pytest tests $(wildcard notebooks/*.ipynb) $(if $(wildcard notebooks/*.ipynb),--nbval,)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

bench: $(STAMP)
	$(BIN)/python tests/benchmarks/ingest.py

# Re-pin every package after changing pyproject.toml dependencies.
lock:
	$(PYTHON) -m pip install --quiet uv
	$(PYTHON) -m uv pip compile pyproject.toml --extra test --universal --python-version 3.11 --no-header -o requirements.lock
	sed -i '1i # Every package pinned, so nbval sees the same outputs everywhere. Regenerate with `make lock`.' requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
