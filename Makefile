# omni — build, test, install. Every target wraps plain `swift` commands.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
PYTHON ?= python3
APT_PACKAGES := libssl-dev libsodium-dev libcurl4-openssl-dev libsqlite3-dev pkg-config
PKG_CONFIG_MODULES := openssl libsodium libcurl sqlite3
BUILD_INFO := Sources/COmniShims/generated/build_info.h
# The Swift runtime and Foundation are linked statically: omni starts in ~6 ms instead of ~11 ms (fewer
# relocations and shared objects to map), which matters for a tool scripts call in loops. The rest shrinks the
# binary and its start (issue 10; figures measured on the stripped release binary): lld packs the ~49,000 relative
# relocations as RELR (-1.1 MB, glibc >= 2.36), Tools/release-exports.map drops the dynamic exports that
# -static-stdlib's -export-dynamic adds (-0.9 MB, -0.4 M instructions per start), --icf=safe folds identical
# functions whose address nothing takes (-12 kB; only the C objects carry the address-significance tables it needs).
# Package.swift builds the cold targets with -Osize (-0.8 MB).
RELEASE_LINK_FLAGS := -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --icf=safe \
  -Xlinker --version-script=$(CURDIR)/Tools/release-exports.map
RELEASE_FLAGS := -c release -Xswiftc -static-stdlib $(RELEASE_LINK_FLAGS)
RELEASE_BIN := .build/release/omni
DEBUG_BIN := .build/debug/omni

# Installs Debian packages: directly as root, through password-less sudo otherwise, else says what to run.
define apt_install
  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
  else echo "missing packages; run: sudo apt-get install -y $(1)"; exit 1; fi; \
  echo "installing $(1)"; \
  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1) >/dev/null
endef

.PHONY: build build-info debug test test-skip-summary test-deps deps install completions docs check-generated bench fuzz fuzz-build clean

# Release build (the default target).
build: deps build-info
	$(SWIFT) build $(RELEASE_FLAGS) --product omni

debug: deps build-info
	$(SWIFT) build --product omni

# Installs the system libraries omni links against when any is missing (apt-get as root, otherwise prints the
# command to run).
deps:
	@if ! pkg-config --exists $(PKG_CONFIG_MODULES) 2>/dev/null; then $(call apt_install,$(APT_PACKAGES)); fi

# What the tests run besides omni: zsh and fish (completion scripts are checked in real shells), Chromium (the
# Internet Identity login round trip runs in it, headless) and the Python peers for the differential tests. Only
# what is missing is installed. Without a way to install Chromium its tests skip (with a note), they do not fail.
TEST_APT_PACKAGES := zsh fish
test-deps: deps
	@if ! command -v zsh >/dev/null || ! command -v fish >/dev/null; then $(call apt_install,$(TEST_APT_PACKAGES)); fi
	@if ! command -v chromium >/dev/null; then ( $(call apt_install,chromium) ) || \
	  echo "note: chromium is not installed; the Internet Identity login tests will be skipped"; fi
	@$(PYTHON) -c "import websockets, cbor2, pyblst, sr25519, bip39, merlin_transcripts, cryptography, ic, segno, scalecodec, openapi_core" 2>/dev/null || \
	  $(PYTHON) -m pip install -q --disable-pip-version-check -r Tests/Peers/requirements.txt

# Stamps the git commit and date into the binary without touching tracked files; rewritten only on change.
build-info:
	@mkdir -p $(dir $(BUILD_INFO))
	@printf '#define OMNI_BUILD_COMMIT "%s"\n#define OMNI_BUILD_DATE "%s"\n' \
	  "$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$$(git diff --quiet HEAD 2>/dev/null || echo -dirty)" \
	  "$$(git log -1 --format=%cs 2>/dev/null || echo unknown)" > $(BUILD_INFO).tmp
	@cmp -s $(BUILD_INFO).tmp $(BUILD_INFO) && rm $(BUILD_INFO).tmp || mv $(BUILD_INFO).tmp $(BUILD_INFO)

# Tests that need ../shared data (vectors, real-world corpus) skip when it is absent and record the skip in
# $(TEST_SKIPS); the summary after `swift test` names them. OMNI_REQUIRE_VECTORS=1 (.ci/run) fails them instead.
# OMNI_SKIP_SLOW=1 skips the one slow test: building Tests/BindingsConsumer (into .build/bindings-consumer) with the
# bindings plugin, which compiles omni's libraries once more for that package.
TEST_SKIPS := .build/omni-test-skips

test: test-deps build-info
	$(SWIFT) build --build-tests
	@rm -rf $(TEST_SKIPS)
	@status=0; $(SWIFT) test --skip-build || status=$$?; $(MAKE) -s test-skip-summary; exit $$status

# Prints which suites skipped how many tests for missing test data, what is missing and how to provide it.
test-skip-summary:
	@if ls $(TEST_SKIPS)/*.skip >/dev/null 2>&1; then \
	  bar='================================================================================'; \
	  echo "$$bar"; \
	  cat $(TEST_SKIPS)/*.skip | awk -F'\t' '{ n[$$2]++ } END { s = 0; t = 0; for (k in n) { s++; t += n[k] }; \
	    printf "SKIPPED %d test%s in %d suite%s: the test data they read is missing\n", t, t == 1 ? "" : "s", s, s == 1 ? "" : "s" }'; \
	  cut -f2 $(TEST_SKIPS)/*.skip | sort | uniq -c | awk '{ printf "  %-64s %4d test%s\n", $$2, $$1, $$1 == 1 ? "" : "s" }'; \
	  echo "missing:"; cut -f4 $(TEST_SKIPS)/*.skip | tr ' ' '\n' | sort -u | sed 's/^/  /'; \
	  echo "To run them, put the shared data beside this repository (../shared/vectors and ../shared/realworld),"; \
	  echo "or set OMNI_VECTORS=/path/to/vectors (the real-world corpus is then read from \$$OMNI_VECTORS/../realworld)."; \
	  echo "With OMNI_REQUIRE_VECTORS=1 (as .ci/run sets) missing data fails these tests instead."; \
	  echo "$$bar"; \
	fi

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0755 -s $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/omni
	install -m 0644 completions/omni.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/omni
	install -m 0644 completions/_omni $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_omni
	install -m 0644 completions/omni.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/omni.fish

# Regenerates completions/ and docs/reference from the command tree (tests fail when they are stale).
# A cached ird OpenAPI document would add its operations to the tree: the generated files never depend on one.
NO_IRD_DOCUMENT := XDG_CACHE_HOME=$(CURDIR)/.build/no-ird-document
completions: debug
	$(NO_IRD_DOCUMENT) $(DEBUG_BIN) completions bash > completions/omni.bash
	$(NO_IRD_DOCUMENT) $(DEBUG_BIN) completions zsh > completions/_omni
	$(NO_IRD_DOCUMENT) $(DEBUG_BIN) completions fish > completions/omni.fish

docs: debug
	$(NO_IRD_DOCUMENT) $(DEBUG_BIN) __generate-docs docs

check-generated: completions docs
	git diff --exit-code -- completions docs

# Times omni next to the independent peers in one run and prints ratios (not a test: no pass/fail). The start-up
# rows compare omni with a C program linking the same libraries, compiled here from Tests/Peers/start_peer.c; the
# TrUAPI bridge rows are driven by the C load generator Tests/Peers/truapi_load.c (bench_truapi.py finds it here).
BENCH_DIR := .build/bench
C_START_PEER := $(BENCH_DIR)/start-peer
TRUAPI_LOAD := $(BENCH_DIR)/truapi-load
bench: deps build-info test-deps
	$(SWIFT) build $(RELEASE_FLAGS) --product omni
	$(SWIFT) build $(RELEASE_FLAGS) --product omni-bench
	@mkdir -p $(BENCH_DIR)
	$(CC) -O2 -o $(C_START_PEER) Tests/Peers/start_peer.c $$(pkg-config --cflags --libs $(PKG_CONFIG_MODULES))
	$(CC) -O2 -pthread -o $(TRUAPI_LOAD) Tests/Peers/truapi_load.c
	$(PYTHON) Tests/Peers/bench.py --omni $(RELEASE_BIN) --omni-bench .build/release/omni-bench --c-peer $(C_START_PEER)

# Coverage-guided fuzzing of every parser (Tests/Fuzz/README.md): builds omni-fuzz twice — the normal build (seeder,
# replayer) and a libFuzzer build with AddressSanitizer in its own scratch path — then runs each target (or
# FUZZ_TARGETS="a b") for FUZZ_SECONDS, FUZZ_JOBS at a time at low priority, corpora under .fuzz/<target>/. Seeds come
# from the shared vectors at run time. Exits non-zero on any crash, sanitizer report or timeout over 1 s.
FUZZ_SECONDS ?= 60
# With FUZZ_RUNS=N a target stops after N executions even if time is left (FUZZ_SECONDS is then the cap).
FUZZ_RUNS ?= 0
# The long campaign in pieces: FUZZ_CAMPAIGN=N runs each target until .fuzz/summary.tsv shows N executions on the
# current code (runs since FUZZ_SINCE; Tests/Fuzz/changes.tsv says what is current) and skips those that have them.
FUZZ_CAMPAIGN ?= 0
FUZZ_SINCE ?=
FUZZ_TARGETS ?=
# Longest input libFuzzer makes (longer seeds are cut): 8192 runs the text targets ~5x faster than the default.
FUZZ_MAX_LEN ?= 65536
# Targets fuzzed at once (one libFuzzer process each); a campaign on an idle machine gives it the core count.
FUZZ_JOBS ?= 1
FUZZ_CONFIG ?= release
OMNI_VECTORS ?= ../shared/vectors
FUZZ_BUILD_FLAGS := -c $(FUZZ_CONFIG) --scratch-path .build/fuzz -Xswiftc -DOMNI_FUZZ -Xswiftc -sanitize=fuzzer,address \
  -Xcc -fsanitize=fuzzer-no-link,address
fuzz-build: deps build-info
	$(SWIFT) build --product omni-fuzz
	@# ld.gold warns "Cannot export local symbol" for every sanitizer-instrumented object; only that line is dropped.
	@mkdir -p .build/fuzz
	@{ $(SWIFT) build --product omni-fuzz $(FUZZ_BUILD_FLAGS) 2>&1; echo $$? > .build/fuzz/build-status; } | grep -v "Cannot export local symbol"; \
	  exit $$(cat .build/fuzz/build-status)

fuzz: fuzz-build
	$(PYTHON) Tests/Fuzz/fuzz.py --fuzzer .build/fuzz/$(FUZZ_CONFIG)/omni-fuzz --replayer .build/debug/omni-fuzz \
	  --seconds $(FUZZ_SECONDS) --runs $(FUZZ_RUNS) --campaign $(FUZZ_CAMPAIGN) --since "$(FUZZ_SINCE)" --max-len $(FUZZ_MAX_LEN) \
	  --jobs $(FUZZ_JOBS) --targets "$(FUZZ_TARGETS)" --vectors "$(OMNI_VECTORS)" --realworld "$(OMNI_VECTORS)/../realworld"

clean:
	$(SWIFT) package clean
	rm -rf $(dir $(BUILD_INFO))
