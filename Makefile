# radarblock. Two commands matter on a fresh Debian machine with the Swift toolchain:
#   make demo   builds a release from the sample data in data/ (installs what it needs)
#   make test   runs every test, including the real-WebKit ones (installs what it needs)

SWIFT      ?= swift
SHARED     ?= $(abspath ../shared)
BUILD_DIR  ?= .build
RELEASE_BIN = $(BUILD_DIR)/release/radarblock
OUT        ?= out
SEED       ?= 1
CASES      ?= 1000
PREFIX     ?= /usr/local
DIST       ?= dist
# The release binary carries the Swift runtime (make dist ships it as is): only Debian's shared libraries remain.
RELEASE_FLAGS ?= --static-swift-stdlib
export SHARED

FUZZ_SECONDS ?= 30
.PHONY: all deps deps-test deps-lint build demo test test-deps test-scripts lint format test-js test-cli test-docs test-optimizer test-webkit test-dist test-fuzz fuzz bench dist install clean

all: build

deps:
	@scripts/install-deps.sh build

deps-test:
	@scripts/install-deps.sh test

deps-lint:
	@scripts/install-deps.sh lint

build: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS) --scratch-path $(BUILD_DIR) --product radarblock

demo: build
	scripts/demo.sh $(RELEASE_BIN) $(OUT)/demo

test: deps-test build
	$(MAKE) --no-print-directory test-deps
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory test-scripts
	$(SWIFT) build --scratch-path $(BUILD_DIR) --build-tests
	$(SWIFT) test --scratch-path $(BUILD_DIR) --skip-build
	$(MAKE) --no-print-directory test-js
	$(MAKE) --no-print-directory test-cli
	$(MAKE) --no-print-directory test-docs
	$(MAKE) --no-print-directory test-optimizer
	$(MAKE) --no-print-directory test-webkit
	$(MAKE) --no-print-directory test-dist
	$(MAKE) --no-print-directory test-fuzz

# The Swift tree as .swift-format formats it, no line over 120 characters, no function over 70 lines; the Python of
# scripts/, Tests/ and Fuzz/ under ruff (check and format, ruff.toml); every shell script under shellcheck.
lint: deps-lint
	scripts/lint/swift.sh
	scripts/lint/python.sh
	scripts/lint/shell.sh

# Rewrites the Swift tree as .swift-format formats it (lines it cannot wrap, comments and strings, stay yours), and
# the Python as ruff formats it (with ruff's safe fixes).
format: deps-lint
	swift-format format --configuration .swift-format -i -r Sources Tests Fuzz
	scripts/lint/python.sh --fix

# Package.swift's dependencies equal the imports.
test-deps:
	python3 scripts/check-deps.py

# The scripts' own unit tests (Tests/scripts: Fuzz/modules.py, the bench's reading of compile --format json, WebKit's
# store file names).
test-scripts:
	python3 -m unittest discover -s Tests/scripts

test-js: build
	Tests/js/run.sh $(RELEASE_BIN) $(SHARED)

test-cli: build
	Tests/cli/hostile-input.sh $(RELEASE_BIN)
	Tests/cli/contract.sh $(RELEASE_BIN)
	Tests/cli/wrong-inputs.sh $(RELEASE_BIN)
	Tests/cli/match-answers.sh $(RELEASE_BIN)
	Tests/cli/diff-report.sh $(RELEASE_BIN)
	Tests/cli/filter-list.sh $(RELEASE_BIN)
	Tests/cli/filter-list-hostile.sh $(RELEASE_BIN)
	Tests/cli/filter-diff.sh $(RELEASE_BIN)
	Tests/cli/filter-release.sh $(RELEASE_BIN)
	Tests/cli/nightly.sh $(RELEASE_BIN)
	Tests/cli/default-target.sh $(RELEASE_BIN)
	Tests/cli/doc-figures.sh $(RELEASE_BIN)

# Every fenced sh block of README.md and docs/ runs (docs/testing.md: markers for blocks that cannot run here).
test-docs: build
	python3 scripts/testing/check_doc_commands.py $(RELEASE_BIN)

# The optimization stage decides every request as the unoptimized list does (shared iOS data; 1M random requests),
# and the shared same-entity exemptions (a list per large entity) as one exemption per tracker (v7 TDS, an entity of
# 1,000 domains, three of 300, 1,000 and 3,000).
test-optimizer: build
	@if [ -d "$(SHARED)/data/ddg/tds" ]; then python3 scripts/testing/check_optimizer_equivalence.py $(RELEASE_BIN) $(SHARED)/data/ddg \
	  && python3 scripts/testing/check_same_entity_equivalence.py $(RELEASE_BIN) $(SHARED)/data/ddg; \
	else echo "test-optimizer: SKIPPED: $(SHARED)/data/ddg not found (the shared iOS data is not in the repository)"; fi

test-webkit: build
	scripts/test-webkit.sh $(RELEASE_BIN) $(SEED) $(CASES)
	Tests/webkit/diff-html.sh $(RELEASE_BIN)

dist: build
	scripts/dist.sh $(RELEASE_BIN) $(DIST)

# make install PREFIX=DIR [DESTDIR=STAGING]: binary, man page, bash and zsh completions.
install: build
	scripts/install-files.sh $(RELEASE_BIN) $(DESTDIR)$(PREFIX)

# The shipped artifacts: tarball on a PATH without Swift, ldd, the .deb (dpkg -i, then purge), man page = --help.
test-dist: dist
	BUILD_DIR=$(BUILD_DIR) Tests/dist/check.sh $(RELEASE_BIN) $(DIST) $(abspath data)

# Fuzz targets (Fuzz/): every target for FUZZ_SECONDS each; fails on a crash, leak, timeout or OOM.
fuzz: build
	Fuzz/run.sh $(RELEASE_BIN) $(FUZZ_SECONDS)

# make test's share: a short fixed budget per target.
test-fuzz: build
	Fuzz/run.sh $(RELEASE_BIN) 12

bench: build
	@scripts/install-deps.sh bench
	$(SWIFT) build -c release $(RELEASE_FLAGS) --scratch-path $(BUILD_DIR) --product radarblock-bench
	scripts/bench.sh $(RELEASE_BIN)
	ONLY=filter_list_webkit_sample FILTER_SAMPLE=400 scripts/test-webkit.sh $(RELEASE_BIN) $(SEED)

clean:
	rm -rf $(BUILD_DIR) $(OUT) $(DIST)
