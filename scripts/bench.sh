#!/usr/bin/env bash
# The benchmarks (issue 6): prints one table per section with its goal and whether
# it is met. Extra arguments go to `python -m benchmarks`, e.g.
#   bash scripts/bench.sh --quick                 # smoke run, small counts (~3 min)
#   bash scripts/bench.sh --only overhead,fixed   # some sections
#   bash scripts/bench.sh --json bench.json       # also write the figures as JSON
# A full run takes about 10-15 minutes on 2 CPUs; results go to benchmarks/RESULTS.md by hand.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup-env.sh"
cd "$ROOT"
VENV="${COMETLOCAL_VENV:-$ROOT/.venv}"
exec "$VENV/bin/python" -m benchmarks "$@"
