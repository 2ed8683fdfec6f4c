#!/usr/bin/env bash
# Runs every fuzz target in the module for the given time each (default 60s).
#
# Go 1.26's fuzzing coordinator can report a bare "context deadline
# exceeded" just as -fuzztime runs out, with no failing input (a race in
# internal/fuzz, golang/go#75804, fixed in Go 1.27). Such a stop wrote no
# input to testdata/fuzz, so there is nothing to reproduce: the target is
# run once more, and a second failure of any kind fails the run. A real
# failure (go test prints "Failing input written to ...") fails at once.
set -euo pipefail
t=${1:-60s}
cd "$(dirname "$0")/.."
found=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for f in $(grep -l '^func Fuzz' "$dir"/*_test.go 2>/dev/null || true); do
		for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
			found=$((found + 1))
			echo "fuzz: $pkg $target for $t"
			if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$t" "$pkg" 2>&1 | tee "$log"; then
				continue
			fi
			if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
				echo "fuzz: $target stopped on the fuzztime deadline with no failing input (golang/go#75804); running it once more"
				go test -run '^$' -fuzz "^${target}\$" -fuzztime "$t" "$pkg"
				continue
			fi
			exit 1
		done
	done
done
echo "fuzz: $found target(s) ran clean"
