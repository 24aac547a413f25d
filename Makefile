GO      ?= go
BIN     := bin/dossier
FULL_BIN := bin/dossier-full
WB_BIN  := bin/dossier-workbench
PKGS    := ./...

# Release link flags: no symbol table or DWARF (-s -w): a smaller binary,
# fewer pages to load at start-up. Not static: a static build with Go's own
# resolver (netgo) loses the system's name lookup (mDNS `*.local` hosts for a
# remote embedder or model, NSS plugins), and measured slower to start here
# (`dossier stats`: 26.5 ms static, 22.7 ms dynamic, perf stat -r 40).
# `make build LDFLAGS= TAGS=` builds as `go build` does, for a debugger.
LDFLAGS ?= -s -w
TAGS    ?=
BUILD   := $(GO) build -ldflags '$(LDFLAGS)' -tags '$(TAGS)'

.PHONY: run build test man shot mcp-client pglite bench bench-cold bench-mcp xref-eval crash fmt lint test-update clean

## build: compile dossier (the one-shot front: stats, search), dossier-full (every other command) and dossier-workbench into bin/
# dossier is built without cgo: it links no C and reaches no network (a search that needs
# a remote endpoint goes to dossier-full), so it loses nothing, and starts without the
# dynamic loader (~50 fewer page faults a process).
build:
	CGO_ENABLED=0 $(BUILD) -o $(BIN) ./cmd/dossier
	$(BUILD) -o $(FULL_BIN) ./cmd/dossier-full
	$(BUILD) -o $(WB_BIN) ./cmd/dossier-workbench

## run: build and open the workbench on the current directory
run: build
	./$(BIN)

## test: run every test (with node on PATH, the MCP end-to-end test with the TypeScript SDK and the Postgres vector tests on PGlite too)
test: mcp-client pglite
	$(GO) test -count=1 -timeout 25m $(PKGS)

## man: the manual pages of every command of dossier and dossier-workbench (section 1) and help topic (section 7) into bin/man, from the help in the code (`man -l bin/man/dossier.1`)
man:
	DOSSIER_MAN_DIR=$(CURDIR)/bin/man $(GO) test -count=1 -run '^TestManPages$$' ./cmd/dossier-full

## shot: print the workbench as tmux shows it on a small fixture project (the picture in README.md)
shot:
	@./scripts/workbench-shot.sh

## mcp-client: install the TypeScript MCP SDK (node_modules, git-ignored) for the end-to-end test
MCP_CLIENT := cmd/dossier-full/testdata/mcpclient
mcp-client:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "node/npm not found: the MCP end-to-end test with the TypeScript SDK is skipped"; \
	elif [ ! -f $(MCP_CLIENT)/node_modules/@modelcontextprotocol/sdk/package.json ]; then \
		npm ci --prefix $(MCP_CLIENT) --no-audit --no-fund --loglevel=error || \
		echo "npm ci failed: the MCP end-to-end test with the TypeScript SDK is skipped"; \
	fi

## pglite: install PGlite with pgvector (node_modules, git-ignored) for the Postgres vector tests (store/pg)
PGLITE := store/pg/pgtest/pglite
pglite:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "node/npm not found: the Postgres vector tests on PGlite are skipped"; \
	elif [ ! -f $(PGLITE)/node_modules/@electric-sql/pglite-socket/package.json ]; then \
		npm ci --prefix $(PGLITE) --no-audit --no-fund --loglevel=error || \
		echo "npm ci failed: the Postgres vector tests on PGlite are skipped"; \
	fi

## bench: Go benchmarks, the GOROOT/src comparison with repomix, then retrieval quality
bench: build
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./index/...
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 20x ./assemble/... ./evidence/... ./ui/... ./cmd/internal/workbench/...
	$(GO) run ./cmd/dossier-bench -dossier $(BIN)
	$(GO) run ./cmd/dossier-retrieval -dossier $(BIN)
	$(GO) run ./cmd/dossier-retrieval -dossier $(BIN) -lang python
	$(GO) run ./cmd/dossier-retrieval -dossier $(BIN) -lang js

## bench-cold: one-shot processes (stats, no-op and one-file re-index, hybrid/text/symbol search) on a copy of $(go env GOROOT)/src beside ripgrep and repomix
bench-cold: build
	$(GO) run ./cmd/dossier-bench -dossier $(BIN) -cold -runs 7

## bench-mcp: search tool-call latency (p50/p95) of `dossier mcp` over stdio on a copy of $(go env GOROOT)/src
MCP_BENCH_DIR ?= $(CURDIR)/bin/mcp-bench
bench-mcp: build
	@[ -d $(MCP_BENCH_DIR)/src ] || (mkdir -p $(MCP_BENCH_DIR) && cp -r "$$($(GO) env GOROOT)/src" $(MCP_BENCH_DIR)/src)
	./$(BIN) index --root $(MCP_BENCH_DIR)/src > /dev/null
	DOSSIER_MCP_BENCH_ROOT=$(MCP_BENCH_DIR)/src $(GO) test -run '^$$' -bench MCPSearchStdio -benchtime 200x ./cmd/dossier-full

## xref-eval: callees and callers of related against the Go type checker, on a copy of this repository (offline)
XREF_DIR ?= $(CURDIR)/bin/xref-eval
xref-eval:
	rm -rf $(XREF_DIR) && mkdir -p $(XREF_DIR)/repo
	git archive HEAD | tar -x -C $(XREF_DIR)/repo
	GOFLAGS=-mod=mod GOPROXY=off $(GO) run ./cmd/dossier-xrefeval/gotruth -dir $(XREF_DIR)/repo -repo dossierhq/dossier -commit $$(git rev-parse HEAD) > $(XREF_DIR)/truth.json
	$(GO) run ./cmd/dossier-xrefeval -truth $(XREF_DIR)/truth.json -root $(XREF_DIR)/repo

## crash: kill index, watch and flow commands at random points CRASH times (default 50) and check nothing is damaged or lost
CRASH ?= 50
crash:
	DOSSIER_CRASH=$(CRASH) $(GO) test -count=1 -run '^TestCrash$$' -v -timeout 60m ./cmd/dossier-full

## fmt: check formatting (gofmt -l must print nothing)
fmt:
	@out="$$(gofmt -l cmd ui evidence assemble index store themes)"; if [ -n "$$out" ]; then echo "$$out"; echo "run gofmt -w on the files above"; exit 1; fi

## lint: go vet
lint:
	$(GO) vet $(PKGS)

## test-update: refresh golden files
test-update:
	$(GO) test -count=1 $(PKGS) -update

## clean: remove build output
clean:
	rm -rf bin
