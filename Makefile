# dicewatch — the README's two commands are `make demo` and `make test`.
SHELL := /bin/bash
# Go from PATH, else where go.dev/dl's archive is unpacked: sudo's
# secure_path (Debian's default) does not have /usr/local/go/bin.
GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
BIN := bin/dicewatch
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
FUZZTIME ?= 60s

.PHONY: all setup build demo test bench accuracy fuzz soak vet fmt-check systemd-check clean install e2e200

all: build

# Installs what is missing (OpenCV 4.6, mosquitto, mosquitto-clients, pkg-config); idempotent.
setup:
	@bash scripts/setup.sh

build: setup
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/dicewatch

# The built-in demo: a generated table session through the whole pipeline to
# a local mosquitto on a free loopback port, decoded events printed as they arrive.
demo: build
	@bash scripts/demo.sh

# The whole test suite (race detector on; rules also without cgo; the
# gocv Mat leak tests under the matprofile tag).
test: setup
	CGO_ENABLED=0 $(GO) test -count=1 ./rules/... ./tracker/... ./config/...
	$(GO) test -count=1 -tags matprofile -run 'MatProfile|NoMatLeaks' ./vision/...
	$(GO) test -race -count=1 -timeout 30m ./...

vet:
	$(GO) vet ./...
	@# The packages that need no cgo (all but vision and the binary) build
	@# for a developer's Mac and for Windows too.
	GOOS=darwin CGO_ENABLED=0 $(GO) build $$($(GO) list ./... | grep -v '/vision\|/cmd/dicewatch')
	GOOS=windows CGO_ENABLED=0 $(GO) build $$($(GO) list ./... | grep -v '/vision\|/cmd/dicewatch')

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Speed and memory targets, printed by Go benchmarks on one core.
bench: setup
	$(GO) test -run '^$$' -bench . -benchmem -cpu 1 ./...

# Reader accuracy on the real photos and generated scenes.
accuracy: setup
	$(GO) test -count=1 -tags scenes -run Accuracy -v -timeout 30m ./vision/

# Each fuzz target for FUZZTIME (default 60 s).
fuzz: setup
	@bash scripts/fuzz.sh $(FUZZTIME)

# systemd-analyze verify + security score of the unit (fails above 2.5).
systemd-check:
	@bash scripts/systemd-check.sh

# Installs what `make build` built (run that first, as yourself): under sudo
# a build would start again from an empty Go cache, as root.
install:
	@test -x $(BIN) || { echo "make install: $(BIN) is missing: run make build first (not as root)" >&2; exit 1; }
	install -D -m 0755 $(BIN) /usr/local/bin/dicewatch
	install -D -m 0644 README.md /usr/local/share/doc/dicewatch/README.md
	install -D -m 0644 systemd/dicewatch.service /etc/systemd/system/dicewatch.service
	install -d -m 0755 /etc/dicewatch
	[ -f /etc/dicewatch/dicewatch.yaml ] || install -m 0640 examples/craps-table.yaml /etc/dicewatch/dicewatch.yaml
	bash scripts/install-system.sh
	chgrp dicewatch /etc/dicewatch/dicewatch.yaml

clean:
	rm -rf bin build

# One hour of the whole daemon on a looping generated 1280x720 30 fps
# recording, resident memory sampled (SOAK=10m for a shorter run).
SOAK ?= 1h
soak: setup
	DICEWATCH_SOAK=$(SOAK) $(GO) test -count=1 -run TestSoak -v -timeout 3h ./cmd/dicewatch

# The daemon as a process on a generated 200-throw session (1920x1080 30 fps,
# seeded mix of all throw kinds) with its sensor trace, to a real mosquitto:
# one decision per throw, verdict accuracy >= 99.5%, no invalid throw
# published valid. E2E_SEED picks the seed (default 404); E2E_DIR keeps the
# rendered session (about 5 GB) for reuse.
E2E_SEED ?= 404
E2E_DIR ?=
e2e200: setup
	DICEWATCH_E2E200=1 DICEWATCH_E2E200_SEED=$(E2E_SEED) DICEWATCH_E2E200_DIR=$(E2E_DIR) \
		$(GO) test -count=1 -run 'TestEndToEnd200$$' -v -timeout 90m ./cmd/dicewatch
