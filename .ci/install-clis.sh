#!/usr/bin/env bash
# Installs the real CLIs that the end-to-end tests drive offline against
# e2e/fakemodel: the oldest supported Claude Code, Codex and the MCP
# TypeScript SDK into .cache/npm inside the repo (ignored by git), and the
# newest CLIs (what a new user installs, see CLAUDE_CODE_LATEST) into
# .cache/npm-latest. Every real-CLI test runs the newest; the tests named
# Oldest run .cache/npm (e2e/clis_test.go).
# Idempotent: does nothing when the wanted versions are already there. Prints
# the pinned bin dir on its last line.
#
# Usage: bash .ci/install-clis.sh
set -euo pipefail

# The oldest supported Claude Code (README "Accounts": the range).
CLAUDE_CODE_VERSION=2.1.197
CODEX_VERSION=0.171.0
MCP_SDK_VERSION=1.32.2

# The newest CLIs, the ones every real-CLI e2e test runs. Update on
# purpose: these are what `npm view @anthropic-ai/claude-code version` and
# `npm view @openai/codex version` answered on 2026-12-05.
CLAUDE_CODE_LATEST=2.1.332
CODEX_LATEST=0.171.0

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

installed_version() { # $1 = prefix, $2 = package name
  local pj="$1/node_modules/$2/package.json"
  [ -f "$pj" ] || return 0
  node -p "require(process.argv[1]).version" "$pj" 2>/dev/null || true
}

# install PREFIX SPEC...: installs the specs into PREFIX unless they are
# there already and the CLIs start.
install() {
  local prefix="$1"
  shift
  local bin="$prefix/node_modules/.bin"
  local missing=() spec
  for spec in "$@"; do
    if [ "$(installed_version "$prefix" "${spec%@*}")" != "${spec##*@}" ]; then
      missing+=("$spec")
    fi
  done
  # The CLIs ship their native binaries as optional platform packages; an
  # install that lost them leaves a bin that cannot start, so check both run.
  if [ ${#missing[@]} -eq 0 ]; then
    if ! "$bin/claude" --version >/dev/null 2>&1 || ! "$bin/codex" --version >/dev/null 2>&1; then
      missing=("$@")
    fi
  fi

  if [ ${#missing[@]} -gt 0 ]; then
    command -v npm >/dev/null || { echo "install-clis: npm not found" >&2; exit 1; }
    mkdir -p "$prefix"
    echo "install-clis: installing ${missing[*]} into $prefix" >&2
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
      --save-exact "$@" >&2
    "$bin/claude" --version >&2
    "$bin/codex" --version >&2
  else
    echo "install-clis: $* already present in $prefix" >&2
  fi
}

install "$root/.cache/npm" \
  "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" \
  "@openai/codex@$CODEX_VERSION" \
  "@modelcontextprotocol/sdk@$MCP_SDK_VERSION"
install "$root/.cache/npm-latest" \
  "@anthropic-ai/claude-code@$CLAUDE_CODE_LATEST" \
  "@openai/codex@$CODEX_LATEST"

echo "$root/.cache/npm/node_modules/.bin"
