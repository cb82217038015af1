#!/usr/bin/env bash
# Whole-program benchmarks of Pullcept against a reference measured in the
# same run (tmux, tail, the raw room socket). See bench/README.md.
#
#   bench/run.sh                 all of them, then a summary table
#   bench/run.sh pane            one (pane, idle, echo, room, topic, memory)
#   bench/run.sh pane memory     several
#
# Builds pullcept and the driver into bench/.out (ignored by git); the 50 MB
# test file and the throwaway PULLCEPT_HOMEs live there too. A TUI run's
# `pullcept` starts that home's server in the background; the driver ends it
# (`pullcept kill-server`, same PULLCEPT_HOME) after every run, and on Ctrl-C.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
export PATH="/usr/local/go/bin:$PATH"
cd "$root"
mkdir -p "$here/.out"
echo "== build" >&2
CGO_ENABLED=0 go build -o "$here/.out/pullcept" .
(cd "$here" && go build -o "$here/.out/pcbench" ./pcbench) # its own module (bench/go.mod)
for tool in tmux tail sh cat seq; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is needed" >&2; exit 1; }
done
exec "$here/.out/pcbench" -bin "$here/.out/pullcept" -root "$root" -work "$here/.out" "$@"
