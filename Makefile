# The two set-up commands: `make demo` and `make test`. Both install what is missing first.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
JOBS ?= $(shell nproc)
# The binary the campaigns run.
DEBUG_BIN := .build/debug/subledger

.PHONY: setup build release demo test bench prove clean
# The suites whose threads open and close descriptors at once (Tools/fd-check in `make test`).
CONCURRENCY_SUITES := SubledgerHTTPTests|SubledgerLMDBTests|SubledgerLogTests|ConcurrencyStressTests|ProjectionFollowingTests|GroupCommitTests|LedgerIngestionTests

setup:
	@Tools/setup

build: setup
	$(SWIFT) build -j $(JOBS)

release: setup
	$(SWIFT) build -c release -j $(JOBS)

demo: release
	.build/release/subledger demo

# Swift Testing runs tests on the concurrency runtime's cooperative pool, a thread a core; a test
# that waits (on a server, a child, a sleep) holds one. Without cooperative queues the runtime
# uses libdispatch's pool, which adds a thread while one is blocked: the suite runs 6 % faster on
# two cores. The `subledger` processes the tests start inherit it and are unchanged by it: they
# start no Swift tasks (their threads are their own and `concurrentPerform`'s).
TEST_ENV := SWIFT_DEBUG_CONCURRENCY_ENABLE_COOPERATIVE_QUEUES=0

# One build of the products and the tests: a graph of both keeps the two cores busier than two
# builds in turn.
test: setup
	$(SWIFT) build -j $(JOBS) --build-tests
	$(TEST_ENV) $(SWIFT) test --skip-build --parallel
	$(MAKE) --no-print-directory -j $(JOBS) --output-sync=target --keep-going checks

# The checks after the unit tests, each a target of its own so that `make test` runs them side by
# side, one a core, each one's output together once it ends. Longest first, so the short ones
# fill in at the end.
CHECKS := fd-check cli-check stale-reader-http fuzz crash-http disk-full-http dashboard-screenshot \
	backup-http load-http corrupt-log crash-log feed-check fd-limit-http restore-http readme-tour
.PHONY: checks $(addprefix check-,$(CHECKS))
checks: $(addprefix check-,$(CHECKS))

check-fd-check:
	$(TEST_ENV) Tools/fd-check --filter '$(CONCURRENCY_SUITES)'
check-cli-check:
	Tools/cli-check
check-readme-tour:
	Tools/readme-tour --small
check-dashboard-screenshot:
	Tools/dashboard-screenshot
check-crash-log:
	Tools/crash-log --runs 12
check-fuzz:
	Tools/fuzz --inputs 10000
check-crash-http:
	python3 Tools/crash-http.py $(DEBUG_BIN) --runs 6
check-backup-http:
	python3 Tools/backup-http.py $(DEBUG_BIN) --runs 3
check-restore-http:
	python3 Tools/restore-http.py $(DEBUG_BIN)
check-corrupt-log:
	python3 Tools/corrupt-log.py $(DEBUG_BIN) --runs 40
check-disk-full-http:
	python3 Tools/disk-full-http.py $(DEBUG_BIN)
check-fd-limit-http:
	python3 Tools/fd-limit-http.py $(DEBUG_BIN)
check-stale-reader-http:
	python3 Tools/stale-reader-http.py $(DEBUG_BIN)
check-feed-check:
	python3 Tools/feed-check.py $(DEBUG_BIN)
check-load-http:
	Tools/load-http --seconds 6 --build debug

# docs/benchmarks.md, regenerated; e.g. `make bench BENCH_ARGS="--runs 5"` (Tools/bench lists the options).
bench: release
	BENCH_COMMAND="make bench$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')" Tools/bench $(BENCH_ARGS)

# The campaigns at length (docs/reliability.md); `make test` runs short versions.
prove: build release
	Tools/sanitize --sanitizer address
	Tools/sanitize --sanitizer thread
	Tools/fd-check
	Tools/stress --customers 400 --months 12
	Tools/stress --customers 400 --months 12 --build release
	Tools/crash-log --runs 200
	python3 Tools/crash-http.py $(DEBUG_BIN) --runs 100
	python3 Tools/corrupt-log.py $(DEBUG_BIN) --runs 1000
	Tools/fuzz --build release --inputs 1000000
	for target in messages base64 events log http; do Tools/fuzz --libfuzzer $$target --runs 5000000 --seconds 300 || exit 1; done
	python3 Tools/disk-full-http.py $(DEBUG_BIN)
	Tools/load-http --seconds 120
	python3 Tools/load-feed.py .build/release/subledger --streams 200 --seconds 30

clean:
	rm -rf .build
