# Trawl: `make help` lists the targets.
SHELL   := /usr/bin/env bash
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/trawlhq/trawl/app.Version=$(VERSION)
ADDR    ?= 127.0.0.1:8080
DIR     ?= testdata/extraction/dev
FUZZTIME ?= 15s
DATA    ?= ./trawl-data

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets
	@awk 'BEGIN{FS=":.*## "} /^[a-zA-Z0-9_-]+:.*## /{printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build bin/trawl
	go build -ldflags "$(LDFLAGS)" -o bin/trawl ./app/cmd/trawl

.PHONY: run
run: build ## Build and start the server at ADDR (127.0.0.1:8080) with SQLite in DATA (./trawl-data); prints a token on first start
	./bin/trawl serve --addr $(ADDR) --data-dir $(DATA)

.PHONY: test
test: ## Run every test with the race detector, then the PDF reader's again without it (its throughput tests skip under it), printed as go test prints it, then list the skipped tests and why (needs a C compiler: the race detector uses cgo; tests whose service or browser is missing skip locally, CI=true makes them fail)
	@command -v "$$(go env CC)" >/dev/null 2>&1 || { echo "make test needs a C compiler ($$(go env CC)): the race detector needs cgo. On Debian: apt-get install gcc"; exit 1; }
	set -o pipefail; { go test -race -count=1 -timeout 30m -json ./...; race=$$?; \
		go test -count=1 -timeout 30m -json ./adapters/pdf; plain=$$?; \
		[ $$race = 0 ] && [ $$plain = 0 ]; } | go run ./testkit/cmd/testreport

# The container image: ko builds the static binary (CGO_ENABLED=0, see
# .ko.yaml) onto a base made here from nothing but /etc/passwd with the
# non-root user trawl and this machine's CA certificates, kept in an OCI
# layout that ko reads as its cache (KOCACHE): no registry is reached.
IMAGE ?= bin/trawl-image.tar

.PHONY: image
image: ## Build the OCI image tarball IMAGE (bin/trawl-image.tar) with ko, offline: static binary, non-root, no shell; `docker load -i` it
	@mkdir -p bin/kocache
	base=$$(go run ./app/cmd/trawl-imagebase -layout bin/kocache/img) && \
	VERSION=$(VERSION) KOCACHE=$(CURDIR)/bin/kocache KO_DEFAULTBASEIMAGE=$$base KO_DOCKER_REPO=trawl \
		go tool -modfile=tools/go.mod ko build ./app/cmd/trawl --bare --push=false --sbom=none --tarball=$(IMAGE)
	TRAWL_TEST_IMAGE=$(abspath $(IMAGE)) go test -count=1 -run TestImage ./app/cmd/trawl-imagebase

.PHONY: test-short
test-short: ## Run the tests quickly, without the race detector
	go test -count=1 ./...

.PHONY: test-sdk-python
test-sdk-python: ## Run the Python SDK's tests that need no server (python3 3.11+); go test ./e2e -run TestSDKPython runs them all against the binary
	cd sdk/python && PYTHONPATH=src PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s tests

.PHONY: bench-extract
bench-extract: ## Extraction quality and speed beside go-trafilatura (fallback on) and go-readability, per page type (DIR=split dir, BENCH_ARGS e.g. -sample 300)
	go run ./bench/trawl-bench-extract -dir $(DIR) $(BENCH_ARGS)

# Fuzz targets as package:FuzzName. FuzzREST feeds every route of the JSON
# API, FuzzRPC every RPC procedure (health and reflection included).
FUZZ_TARGETS := ./core/weburl/:FuzzParse ./adapters/httpapi/:FuzzREST ./adapters/connectapi/:FuzzRPC ./adapters/sitemapxml/:FuzzScanLocs

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME (URL rules, every REST route, every RPC procedure)
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t#*:} ($${t%%:*}) for $(FUZZTIME)"; \
		go test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) "$${t%%:*}"; \
	done

.PHONY: lint
lint: fmtcheck tidycheck ## gofmt and go mod tidy leave no diff, go vet, staticcheck and buf lint
	go vet ./...
	go tool -modfile=tools/go.mod staticcheck ./...
	go tool -modfile=tools/go.mod buf lint

.PHONY: fmtcheck
fmtcheck: ## Fail if gofmt would change a file
	@files="$$(gofmt -l $$(git ls-files '*.go'))"; \
	if [ -n "$$files" ]; then echo "gofmt would change these files (run make fmt):"; echo "$$files"; exit 1; fi

.PHONY: tidycheck
tidycheck: ## Fail if go mod tidy would change go.mod or go.sum (the product's or the tools')
	@go mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }
	@cd tools && go mod tidy -diff || { echo "tools/go.mod/go.sum are not tidy: run go mod tidy in tools"; exit 1; }

.PHONY: fmt
fmt: ## Format the code
	gofmt -w $$(git ls-files '*.go')

.PHONY: generate
generate: generate-ts generate-pdfium ## Regenerate generated code: protobuf and Connect (buf), mocks (mockery; only the interfaces .mockery.yaml lists), the TypeScript client's types (openapi-typescript), PDFium's reduced WebAssembly module (Binaryen)
	go tool -modfile=tools/go.mod buf generate
	rm -f testkit/mocks/*.go
	go tool -modfile=tools/go.mod mockery

GENERATED := adapters/connectapi/gen testkit/mocks sdk/typescript/src/schema.ts adapters/pdf/pdfiumwasm/pdfium.wasm adapters/pdf/pdfiumwasm/module_gen.go

# PDFium's WebAssembly module reduced to the functions Trawl calls
# (adapters/pdf/pdfiumwasm): Binaryen's wasm-metadce, pinned in
# tools/binaryen and installed from its lockfile (Debian's binaryen is too
# old to read the module's exception handling).
BINARYEN := tools/binaryen

$(BINARYEN)/node_modules/.package-lock.json: $(BINARYEN)/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "Binaryen needs node 18+ and npm (Debian: apt-get install nodejs npm)"; exit 1; }
	cd $(BINARYEN) && npm ci --no-audit --no-fund

.PHONY: generate-pdfium
generate-pdfium: $(BINARYEN)/node_modules/.package-lock.json ## Regenerate PDFium's reduced WebAssembly module from go-pdfium's (needs node and npm)
	go run ./adapters/pdf/pdfiumwasm/internal/generate -binaryen $(BINARYEN)/node_modules/.bin

# The TypeScript client (sdk/typescript): its tools (tsc, openapi-typescript)
# are pinned devDependencies, installed from the lockfile when it changes.
SDK_TS := sdk/typescript

$(SDK_TS)/node_modules/.package-lock.json: $(SDK_TS)/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "the TypeScript client needs node 18+ and npm (Debian: apt-get install nodejs npm)"; exit 1; }
	cd $(SDK_TS) && npm ci --no-audit --no-fund

.PHONY: generate-ts
generate-ts: $(SDK_TS)/node_modules/.package-lock.json ## Regenerate the TypeScript client's types from the OpenAPI document (needs node and npm)
	cd $(SDK_TS) && npm run --silent generate

.PHONY: sdk-ts
sdk-ts: $(SDK_TS)/node_modules/.package-lock.json ## Build the TypeScript client with tsc and run its tests, the check that its types match the OpenAPI document included (needs node 18+ and npm)
	cd $(SDK_TS) && npm test

.PHONY: fixtures
fixtures: ## Rebuild the front-end fixture pages of the rendering tests (testdata/render/dist) with Vite, versions from the lockfile (needs node and npm)
	cd testdata/render/app && npm install --no-audit --no-fund && npx vite build

.PHONY: checkgenerate
checkgenerate: generate ## Fail if generated code is out of date
	@git diff --exit-code -- $(GENERATED) || { echo "generated code is out of date: run make generate"; exit 1; }
	@test -z "$$(git status --porcelain -- $(GENERATED))" || { echo "untracked generated files: run make generate and commit"; git status --porcelain -- $(GENERATED); exit 1; }

.PHONY: bench
bench: ## Print each figure beside its floor measured in the same run (ratios, p50/p99, SQLite and PostgreSQL), then the Go benchmarks
	go run ./bench/trawl-bench
	@$(MAKE) --no-print-directory bench-serp
	go test -run '^$$' -bench . -benchmem ./adapters/... ./core/...

.PHONY: bench-serp
bench-serp: ## The parse of the saved Google, Bing and DuckDuckGo result pages beside html.Parse of the same bytes: CPU time per op over about a second of each, 7 alternated pairs, median of the pairs' ratios
	@go test -c -o "$${TMPDIR:-/tmp}/trawl-serp.test" ./adapters/serp/ && cd adapters/serp && \
	for en in Google:40 Bing:60 DuckDuckGo:250; do e=$${en%%:*}; n=$${en##*:}; \
	for i in 1 2 3 4 5 6 7; do \
		"$${TMPDIR:-/tmp}/trawl-serp.test" -test.run '^$$' -test.bench "^Benchmark$$e(Floor)?\$$" -test.benchtime $${n}x | \
		awk -v e="$$e" '{for (i = 2; i <= NF; i++) if ($$i == "cpu-ns/op") v = $$(i-1)} $$1 ~ ("^Benchmark" e "-") {p = v} $$1 ~ ("^Benchmark" e "Floor-") {f = v} \
			END {printf "%.3f %d %d\n", p/f, p, f}'; \
	done | sort -n | awk -v e="$$e" '{r[NR] = $$1; p[NR] = $$2; f[NR] = $$3} END {m = int((NR+1)/2); \
		printf "SERP parse of the saved %s pages: %.1f ms CPU beside html.Parse %.1f ms, ratio %.2f (median of %d pairs; goal <= 1.3)\n", e, p[m]/1e6, f[m]/1e6, r[m], NR}'; \
	done; \
	rm -f "$${TMPDIR:-/tmp}/trawl-serp.test"
