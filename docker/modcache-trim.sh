#!/usr/bin/env bash
# docker/modcache-trim.sh: shrinks the Go module cache of the image (the Dockerfile runs it in
# the layers that fill the cache). Removes the modules' testdata folders: test inputs, never
# compiled (some modules carry tens of MB). The zip files stay: offline, `go get` (a notebook's
# setup cell) needs them for modules whose sums its go.sum lacks.
# Prints the cache's size before and after.
set -euo pipefail
cache=$(go env GOMODCACHE)
[ -d "$cache" ] || exit 0
before=$(du -sm "$cache" | cut -f1)
find "$cache" -path "$cache/cache" -prune -o -type d -name testdata -prune -exec rm -rf {} +
echo "modcache-trim: $cache: ${before} MB -> $(du -sm "$cache" | cut -f1) MB"
