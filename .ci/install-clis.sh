#!/usr/bin/env bash
# Installs the pinned real CLIs that the end-to-end tests drive offline against
# e2e/fakemodel: Claude Code, Codex, and the MCP TypeScript SDK, into
# .cache/npm inside the repo (ignored by git). Idempotent: does nothing when the
# pinned versions are already there. Prints the bin dir on its last line.
#
# Usage: bash .ci/install-clis.sh
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.197
CODEX_VERSION=0.171.0
MCP_SDK_VERSION=1.32.2

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$root/.cache/npm"
bin="$prefix/node_modules/.bin"

installed_version() { # $1 = package name
  local pj="$prefix/node_modules/$1/package.json"
  [ -f "$pj" ] || return 0
  node -p "require(process.argv[1]).version" "$pj" 2>/dev/null || true
}

want=(
  "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
  "@openai/codex@$CODEX_VERSION"
  "@modelcontextprotocol/sdk@$MCP_SDK_VERSION"
)

missing=()
for spec in "${want[@]}"; do
  name="${spec%@*}"
  version="${spec##*@}"
  if [ "$(installed_version "$name")" != "$version" ]; then
    missing+=("$spec")
  fi
done
# The CLIs ship their native binaries as optional platform packages; an
# install that lost them leaves a bin that cannot start, so check both run.
if [ ${#missing[@]} -eq 0 ]; then
  if ! "$bin/claude" --version >/dev/null 2>&1 || ! "$bin/codex" --version >/dev/null 2>&1; then
    missing=("${want[@]}")
  fi
fi

if [ ${#missing[@]} -gt 0 ]; then
  command -v npm >/dev/null || { echo "install-clis: npm not found" >&2; exit 1; }
  mkdir -p "$prefix"
  echo "install-clis: installing ${missing[*]} into $prefix" >&2
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
    --save-exact "${want[@]}" >&2
  "$bin/claude" --version >&2
  "$bin/codex" --version >&2
else
  echo "install-clis: pinned CLIs already present" >&2
fi

echo "$bin"
