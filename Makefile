# uno_rl: set up and run. Every target that needs Python builds .venv first.
#
#   make train   main job (uno_rl train)
#   make test    the test suite on every core (CI's .ci/run calls exactly this); ends with
#                the 15 slowest tests
#   make test-long  the same suite with the full sweeps (UNO_RL_TEST_PROFILE=long)
#   make bench   throughput benchmark (uno_rl bench)
#   make results the results pages' figures and tables (docs/results/) from the newest
#                finished run of each experiment under runs/
#   make lint    ruff
#   make clean   remove the venv and caches

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# torch is installed first, pinned: an unpinned torch would let pip resolve a multi-GB CUDA
# build. Where a CPU wheel of this version lies in a local wheel folder, pip's config finds it.
# The rlcard extra (RLCard 1.2.0: numpy and termcolor only) lets the tests run the peer benchmark;
# the sb3 extra (a few MB; torch is already there) runs the MaskablePPO example test; the
# video extra (moviepy, with a bundled ffmpeg) lets a test record an episode with RecordVideo; the ray
# extra runs the Ray backend tests on a local Ray instance; the docs extra lets a test build the
# documentation site with mkdocs build --strict; the track extra (wandb) lets the tests log a
# run to Weights & Biases in offline mode (written to disk, nothing sent); the openspiel extra
# (OpenSpiel's wheel) lets the tests run OpenSpiel's checks and IS-MCTS on python_uno_rl; the
# torchrl extra (TorchRL and tensordict) runs the TorchRL PPO example test over the PettingZoo env.
TORCH_VERSION ?= 2.13.0
STAMP  := $(VENV)/install.stamp

# pytest-xdist spreads the tests over the cores (-n auto); tests/conftest.py groups those that
# share a built fixture and starts the long ones first.
PYTEST := $(BIN)/python -m pytest -q -n auto --dist loadgroup --no-loadscope-reorder --durations=15

.PHONY: .venv train test test-long bench results lint clean

.venv: $(STAMP)

# Re-runs whenever pyproject.toml or this Makefile changes.
$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install torch==$(TORCH_VERSION)
	$(BIN)/pip install -e '.[dev,rlcard,sb3,ray,docs,video,track,openspiel,torchrl]'
	touch $@

train: $(STAMP)
	$(BIN)/uno_rl train

# The package and the tests byte-compiled once (about a second): the suite starts many Python
# processes, and where PYTHONDONTWRITEBYTECODE is set none of them would keep what it compiled.
# The compiled engine too (about a minute the first time, then kept on disk), before the tests'
# processes would each start compiling it.
test: $(STAMP)
	$(BIN)/python -m compileall -q uno_rl tests
	$(BIN)/python -m uno_rl.agents.compiled.precompile
	$(PYTEST)

test-long: $(STAMP)
	$(BIN)/python -m compileall -q uno_rl tests
	$(BIN)/python -m uno_rl.agents.compiled.precompile
	UNO_RL_TEST_PROFILE=long $(PYTEST)

bench: $(STAMP)
	$(BIN)/uno_rl bench

results: $(STAMP)
	$(BIN)/python -m uno_rl.docsite.results

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
