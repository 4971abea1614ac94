# agentrep — `make run` builds and serves the demo world; `make test` runs every test.
SHELL := /bin/bash
.DEFAULT_GOAL := help
CARGO ?= cargo
TARGET := $(or $(CARGO_TARGET_DIR),target)
BIN := $(TARGET)/debug/agentrep
ADDR ?= 127.0.0.1:8402

.PHONY: help setup setup-build build build-cluster run run-paid test lint fmt bench fuzz clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

setup-build: ## What building and `make run` need: the prebuilt libduckdb (npm) and the mold linker (Debian)
	@./scripts/fetch-duckdb.sh
	@./scripts/install-debian.sh mold

setup: setup-build ## Everything `make test` needs besides: anvil and solc (npm), the clients the tests drive (npm, PyPI) and headless Chromium (Debian)
	@./scripts/setup-test-tools.sh

# Only the agentrep binary, without the cluster engine (agentrep-cluster: DataFusion and Ballista,
# 86 crates more) and the test library, so the first `make run` stays short. `make test` builds
# those and the test targets too; feature-set/Cargo.toml, built beside the binary, keeps every
# dependency the two share resolved with the same features, so after `make build` it compiles no
# dependency again (tests/feature_set).
build: setup-build ## Build the agentrep binary (dev profile: dependencies optimised where the runs spend time)
	@[ -x $(BIN) ] || echo "make: building agentrep for the first time: about 6 minutes on 2 cores with the crates' download (BENCHMARKS.md 4s); cargo shows its progress below"
	$(CARGO) build -p agentrep-jobs -p agentrep-feature-set

build-cluster: setup-build ## Build the agentrep binary with the Ballista engine and `agentrep cluster` (feature `cluster`)
	$(CARGO) build --workspace --lib --bins --features agentrep-jobs/cluster

run: build ## Generate the default world, publish its first day and serve on $(ADDR), filling the other 29 days while it serves
	@[ -d demo/snapshots ] || echo "make: generating the demo world and publishing its first day (a few seconds); the other 29 days follow while it serves"
	$(BIN) demo --dir demo --addr $(ADDR)

run-paid: build ## The demo taking payments on a local chain (anvil), printing a buy to paste
	@./scripts/fetch-chain-tools.sh
	@./scripts/fetch-test-clients.sh
	$(BIN) demo --dir demo --addr $(ADDR) --paid

# The test tools install while the workspace compiles (scripts/test.sh): they need the network and
# the disk, the build the two cores.
test: setup-build ## Unit, integration and end-to-end tests (closes with one summary line)
	CARGO="$(CARGO)" ./scripts/test.sh

lint: setup ## Formatting, clippy, and the server's dependency invariant
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --features agentrep-jobs/cluster -- -D warnings
	@! $(CARGO) tree -p agentrep-server -e normal | grep -qE 'duckdb|polars' || { echo "agentrep-server must not link duckdb or polars"; exit 1; }

fmt: ## Format the code
	$(CARGO) fmt --all

bench: setup ## Benchmarks (release build; rebuild at bench scale, server against nginx, ingest from anvil)
	@./scripts/install-debian.sh wrk nginx
	$(CARGO) build --release --features agentrep-jobs/cluster -p agentrep-jobs -p agentrep-tests -p agentrep-payments -p agentrep-store --bin agentrep --example bench_chain --example bench_verify --example bench_ledger --example bench_live --example bench_writes
	AGENTREP_BIN=$(TARGET)/release/agentrep BENCH_CHAIN_BIN=$(TARGET)/release/examples/bench_chain BENCH_VERIFY_BIN=$(TARGET)/release/examples/bench_verify BENCH_LEDGER_BIN=$(TARGET)/release/examples/bench_ledger BENCH_LIVE_BIN=$(TARGET)/release/examples/bench_live BENCH_WRITES_BIN=$(TARGET)/release/examples/bench_writes ./scripts/bench.sh

fuzz: setup-build ## Every fuzz target under libFuzzer, 10 million executions each (FUZZ_RUNS), then schemathesis unseeded, 500 examples an operation (`make test` runs a short, seeded pass of each)
	CARGO="$(CARGO)" ./scripts/fuzz.sh

clean: ## Remove build output and demo data
	$(CARGO) clean
	rm -rf demo bench-data .duckdb
