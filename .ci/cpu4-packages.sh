#!/usr/bin/env bash
# cpu4-packages.sh: the packages whose tests .ci/run runs again with
# GOMAXPROCS 4 (go test -cpu 4), one import path a line.
#
# go test ./... runs every package at the machine's GOMAXPROCS and
# .ci/run again at 1 (no second goroutine runs in parallel). A third run
# at 4 checks something new only where a number of goroutines or
# workers follows GOMAXPROCS: the packages (besides btf) whose code
# starts goroutines or reads GOMAXPROCS or NumCPU, and every package
# whose tests link one of them. btf alone is left out of that set: its
# only such code, the split walk of a big type section, asks whether
# GOMAXPROCS is below 2, so 4 takes the path go test's own run took on a
# machine of two or more cores. Goroutines a test starts itself run in
# parallel at 2 as at 4; the race detector's step checks the packages
# that share state. On one core (go test ran at 1) this prints every
# package.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
	go list ./...
	exit
fi
mod=$(go list -m)
# The packages whose own code sizes its concurrency by GOMAXPROCS.
conc=$(go list -f '{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}' ./... |
	while read -r pkg dir files; do
		[ "$pkg" = "$mod/btf" ] && continue
		[ -n "$files" ] || continue
		if (cd "$dir" && grep -qE '^\s*go\s+(func|[A-Za-z_][A-Za-z0-9_.]*\()|GOMAXPROCS|NumCPU' $files); then
			echo "$pkg"
		fi
	done)
# Every package whose test binary (its tests and what they import)
# links one of them.
go list -test -f '{{.ImportPath}},{{join .Deps ","}}' ./... |
	awk -F, -v conc="$conc" '
		BEGIN { n = split(conc, c, "\n"); for (i = 1; i <= n; i++) want[c[i]] = 1 }
		$1 ~ /\.test$/ {
			pkg = substr($1, 1, length($1) - 5)
			for (i = 1; i <= NF; i++) {
				dep = $i
				sub(/ \[.*/, "", dep)
				if (dep in want) { print pkg; next }
			}
		}' | sort -u
