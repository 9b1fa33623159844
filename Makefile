# idemc — common tasks. Every target works on a fresh machine with Go installed
# (DuckDB ships inside its Go module; no server is needed).

GO ?= go

.PHONY: build test demo docs bench update-golden lint soak spark services clean

# build: the idemc binary at ./idemc.
build:
	$(GO) build -o idemc ./cmd/idemc

# test: every unit, golden and end-to-end test; vet and gofmt must be clean.
# Live PostgreSQL/MariaDB/Spark suites skip unless their servers answer (CI sets IDEMC_REQUIRE_LIVE=1);
# `make services` starts them. The live Spark package (its conformance suite and
# fault trials) takes about 25 minutes on a quiet 2-core machine, longer
# beside the other packages: hence the timeout.
test:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) test -timeout 75m ./...

# demo: seed and build the demo project into target/warehouse.duckdb. The demo
# data is July 2026, so the logical time is fixed: reruns are reproducible.
demo:
	$(GO) run ./cmd/idemc build --as-of 2026-08-01T00:00:00Z
	$(GO) run ./cmd/idemc status --select events_daily --start 2026-07-28 --end 2026-08-01

# docs: the demo's docs site in target/docs/index.html (run make demo first):
# the graph, column lineage, the partition heatmap and the runs.
docs:
	$(GO) run ./cmd/idemc docs --as-of 2026-08-01T00:00:00Z

# bench: compile, runner and seed-load benchmarks (figures go to docs/benchmarks.md).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./compiler/... ./runner/... ./adapters/duckdb/

# update-golden: rewrite golden files after an intended change; review the diff.
# (compiler/testdata/golden/<case>/ holds a project and out/<target>/ per target;
# a new case is a new folder.) The second run, without -update, compares a
# fresh compile with the files just written: a second update changes nothing.
GOLDEN_PKGS = ./compiler/ ./compiler/dag/ ./compiler/analyze/ ./adapters/
update-golden:
	$(GO) test -count=1 $(GOLDEN_PKGS) -update
	$(GO) test -count=1 $(GOLDEN_PKGS)

# lint: lint the demo project's models.
lint:
	$(GO) run ./cmd/idemc lint

# soak: the long fault-injection runs, per engine (DuckDB, PostgreSQL,
# MariaDB), each trial compared with a clean run's tables and audit rows:
#   TestFaults: a crash and a failure at every step of one unit of every
#     model, then 60 random trials (kill -9 by rule and by timer, server-side
#     session kills, failed steps);
#   TestFaultsSchema: a column change (add, drop, retype, full refresh) then a
#     failure or a crash at every later step;
#   TestConcurrent: 120 trials of 2-4 runners at once;
#   TestTimeZones: every cell of the time-zone matrix (CI runs 32).
# IDEMC_FAULT_TRIALS, IDEMC_CONC_TRIALS and IDEMC_FAULT_SEED override counts
# and the seed; the SUMMARY lines give the outcomes. Then the differential
# state fuzzer: IDEMC_STATE_SEQUENCES sequences (default 1000) per engine,
# each compared with from-scratch builds after every step. Last, the live
# Spark suites (make spark, below) with 20 fault trials.
soak:
	IDEMC_SOAK=1 $(GO) test -p 1 -run '^(TestFaults|TestFaultsSchema|TestConcurrent|TestTimeZones)$$' -count=1 -v -timeout 150m ./adapters/duckdb/ ./adapters/postgres/ ./adapters/mysql/
	IDEMC_STATE_SEQUENCES=$${IDEMC_STATE_SEQUENCES:-1000} $(GO) test -run '^TestStateFuzz$$' -count=1 -v -timeout 120m ./internal/statefuzz/
	$(MAKE) spark

# spark: the live Spark Connect + Delta suites alone (CI runs them inside
# `make test`, with its services started by .ci/run): starts the local server
# (scripts/services.sh spark), then the conformance suite, the fault trials
# (IDEMC_FAULT_TRIALS, default 20) and the demo on every engine, Spark
# included. IDEMC_TRACE=1 prints each statement's time.
spark:
	eval "$$(scripts/services.sh spark)" && IDEMC_REQUIRE_LIVE=1 IDEMC_FAULT_TRIALS=$${IDEMC_FAULT_TRIALS:-20} IDEMC_FAULT_DAYS=$${IDEMC_FAULT_DAYS:-6} \
		$(GO) test -p 1 -count=1 -v -timeout 240m -run '^(TestConformance|TestFaults)$$' ./adapters/spark/ && \
		eval "$$(scripts/services.sh postgres mariadb spark)" && IDEMC_REQUIRE_LIVE=1 \
		$(GO) test -count=1 -v -timeout 120m -run '^TestDemoSameOnEveryEngine$$' ./cmd/idemc/

# services: install (Debian packages, as root) and start PostgreSQL, MariaDB
# and Redis on loopback; `eval "$$(scripts/services.sh)"` also exports the DSNs.
services:
	@scripts/services.sh

clean:
	rm -rf target idemc
