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
run: build ## Build and start the server on the embedded SQLite store (prints a token on first start)
	./bin/trawl serve --addr $(ADDR) --data-dir $(DATA)

.PHONY: test
test: ## Run every test with the race detector (Postgres tests skip locally if it is unreachable; CI=true makes them fail)
	go test -race -count=1 ./...

.PHONY: test-short
test-short: ## Run the tests quickly, without the race detector
	go test -count=1 ./...

.PHONY: bench-extract
bench-extract: ## Extraction quality and speed beside go-trafilatura (fallback on) and go-readability, per page type (DIR=split dir, BENCH_ARGS e.g. -sample 300)
	go run ./app/cmd/trawl-bench-extract -dir $(DIR) $(BENCH_ARGS)

.PHONY: fuzz
fuzz: ## Run the fuzz tests for FUZZTIME each
	go test -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) ./core/weburl/

.PHONY: lint
lint: ## go vet, staticcheck and buf lint
	go vet ./...
	go tool staticcheck ./...
	go tool buf lint

.PHONY: fmt
fmt: ## Format the code
	gofmt -w $$(git ls-files '*.go')

.PHONY: generate
generate: ## Regenerate generated code: protobuf and Connect (buf), mocks (mockery)
	go tool buf generate
	go tool mockery

GENERATED := adapters/connectapi/gen testkit/mocks

.PHONY: checkgenerate
checkgenerate: generate ## Fail if generated code is out of date
	@git diff --exit-code -- $(GENERATED) || { echo "generated code is out of date: run make generate"; exit 1; }
	@test -z "$$(git status --porcelain -- $(GENERATED))" || { echo "untracked generated files: run make generate and commit"; git status --porcelain -- $(GENERATED); exit 1; }

.PHONY: bench
bench: ## Print the performance figures: HTTP load, ledger throughput, Go benchmarks
	go run ./app/cmd/trawl-bench
	go test -run '^$$' -bench . -benchmem ./adapters/... ./core/...
