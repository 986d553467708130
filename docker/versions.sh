# docker/versions.sh: the pinned tool versions, sourced by docker/setup.sh and
# docker/notebook-module.sh (docker/README.md says why each is pinned).
# shellcheck shell=bash disable=SC2034
GONB_VERSION=v0.11.5      # the Go module proxy serves gonb at exact versions only
GOPLS_VERSION=v0.23.0     # gopls@latest needs a newer Go than 1.26
GOIMPORTS_VERSION=v0.47.0 # golang.org/x/tools, the line gopls v0.23.0 is built on
