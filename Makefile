# The two commands that do all set-up: `make run` and `make test`.
# Everything else here is a convenience on top of CMake presets.

PRESET ?= release
BUILD_DIR := build/$(PRESET)
PORT ?= 8080
CTEST_ARGS ?=
CLUSTER_NODES ?= 3
CLUSTER_DIR ?= cluster-run
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(patsubst tests/fuzz/%_fuzz.cpp,%,$(wildcard tests/fuzz/*_fuzz.cpp))

.PHONY: run test cluster deps build configure unit asan tsan fuzz soak bench bench-compare clean web package

deps:
	@bash deploy/install-deps.sh

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build --preset $(PRESET)

# client-ts/dist: @parlor/client built for Node (its bot example and test use it); the web
# client bundles the package from its sources, so the two builds are independent.
web: deps
	@if [ -f client-ts/package.json ]; then cd client-ts && npm run --silent build; fi
	@if [ -f client-web/package.json ]; then cd client-web && npm run --silent build; fi

run: build web
	./$(BUILD_DIR)/server/parlor-server --port $(PORT) --static-dir client-web/dist

# A cluster on this machine (deploy/cluster/up.sh): Redis, PostgreSQL, CLUSTER_NODES nodes and
# HAProxy on http://localhost:$(PORT), with the web client, until Ctrl-C; then down.sh stops it.
# The processes run in sessions of their own, so the Ctrl-C reaches only this shell, whose
# trap stops them in order.
cluster: build web
	@up=0; trap 'if [ $$up = 1 ]; then deploy/cluster/down.sh $(CLUSTER_DIR); fi' EXIT; \
	trap 'exit 0' INT TERM; \
	PARLOR_SERVER=$(BUILD_DIR)/server/parlor-server deploy/cluster/up.sh \
	  --nodes $(CLUSTER_NODES) --port $(PORT) --dir $(CLUSTER_DIR) || exit 1; \
	up=1; \
	echo "logs in $(CLUSTER_DIR)/logs; Ctrl-C stops the cluster"; \
	while :; do sleep 1; done

# Every test except the opt-in labels load and soak; then, with the release preset, the
# sanitizer runs (tools/sanitize.sh): the unit tests, the in-process server tests and the
# conformance suite under ASan+UBSan, a fuzz smoke run of every fuzz target, and the
# in-process server tests under ThreadSanitizer. Their two builds run during the release
# suite at the lowest CPU and I/O priority (its log: build/sanitize-build.log), so that they
# take the CPU its tests leave idle. They run in a session of their own, to be stopped as a
# group; with Linux's autogroup scheduling a session is also a scheduling group, which gets
# its fair share of the CPU whatever its processes' nice value: the group's own nice value is
# set as well (/proc/self/autogroup), else the builds take half the CPU from the suite.
# SANITIZE=0 leaves them out.
#
# The release suite plays at most SELF_PLAY_MAX_GAMES games per self-play test (each test's
# own count is up to 10,000; their seeds are fixed, so a run plays the first games of the same
# sequence): the full counts took 738 s of the suite's test time on a two-core machine, at
# most 1,000 games 228 s, which with the builds keeps the run near CI's 45 minutes.
# `make test SELF_PLAY_MAX_GAMES=0` plays every test's full count.
SANITIZE ?= 1
SELF_PLAY_MAX_GAMES ?= 1000
test: build web
	@sanitize=0; if [ "$(PRESET)" = release ] && [ "$(SANITIZE)" != 0 ]; then sanitize=1; fi; \
	if [ $$sanitize = 1 ]; then \
	  setsid sh -c 'echo 19 >/proc/self/autogroup 2>/dev/null; exec nice -n 19 ionice -c 3 tools/sanitize.sh build' \
	    >build/sanitize-build.log 2>&1 & \
	  builder=$$!; trap 'kill -- -$$builder 2>/dev/null' INT TERM; \
	fi; \
	status=0; \
	(cd $(BUILD_DIR) && \
	  if [ "$(SELF_PLAY_MAX_GAMES)" != 0 ]; then export PARLOR_SELF_PLAY_MAX_GAMES=$(SELF_PLAY_MAX_GAMES); fi && \
	  ctest --output-on-failure --timeout 900 -j2 -LE 'load|soak' $(CTEST_ARGS)) || status=$$?; \
	if [ $$sanitize = 1 ]; then \
	  if [ $$status != 0 ]; then kill -- -$$builder 2>/dev/null; wait $$builder; exit $$status; fi; \
	  if ! wait $$builder; then cat build/sanitize-build.log; echo "the sanitizer builds failed"; exit 1; fi; \
	  tools/sanitize.sh all || status=$$?; \
	fi; \
	exit $$status

# The Debian package, $(BUILD_DIR)/parlor_<version>_amd64.deb, with the web client in it
# (docs/OPERATIONS.md, "Installing the package").
package: build web
	cd $(BUILD_DIR) && cpack -G DEB

asan:
	@$(MAKE) test PRESET=asan

# Every test that runs a server (labels integration and conformance) under ThreadSanitizer;
# `make test` runs the in-process ones (label tsan) in the same build.
tsan: deps
	@cmake --preset tsan >/dev/null
	@cmake --build --preset tsan
	ctest --preset tsan --timeout 900 -j2

# libFuzzer runs of the fuzz targets (tests/fuzz/), FUZZ_SECONDS each, in a clang build of
# their own (the fuzz preset: ASan, UBSan, every library instrumented). Inputs that reach new
# code collect in build/fuzz/corpus/NAME; worthwhile ones are copied into tests/fuzz/corpus/NAME
# by hand. A crash stops the run with build/fuzz/NAME-crash-*: fix it and commit that input to
# the corpus, where every `make test` replays it. Inputs stop at 20000 bytes, past the 16 KiB
# frame and 8 KiB header limits; a larger corpus file (a regression input) is read cut short.
fuzz: deps
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz
	@set -e; for name in $(FUZZ_TARGETS); do \
	  echo "fuzz: $$name for $(FUZZ_SECONDS) s"; \
	  tools/fuzz_target.sh $$name $(FUZZ_SECONDS) build/fuzz/corpus/$$name build/fuzz/$$name-; \
	done

# The soak (tests/soak/soak.sh): bots against a durable server for SOAK_SECONDS (an hour),
# sampled into build/soak.csv and judged on what must not grow (docs/OPERATIONS.md, "Soak").
SOAK_SECONDS ?= 3600
soak: build
	tests/soak/soak.sh $(BUILD_DIR) $(SOAK_SECONDS) build/soak.csv

bench: build
	./$(BUILD_DIR)/tests/parlor-bench

# The paired server benchmark of this tree against BASE (a commit): tools/bench_compare.sh,
# docs/BENCHMARKS.md "Comparing two commits". ROUNDS pairs, each run SECONDS long.
BASE ?=
ROUNDS ?= 5
bench-compare: deps
	@if [ -z "$(BASE)" ]; then echo "usage: make bench-compare BASE=<commit> [ROUNDS=5]"; exit 2; fi
	tools/bench_compare.sh $(BASE) $(ROUNDS)

clean:
	rm -rf build
