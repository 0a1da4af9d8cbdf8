#!/usr/bin/env bash
# The test command (README, .ci/run): installs what it needs, then runs the suite.
# Extra arguments go to pytest, e.g. `scripts/test.sh -k loader -x`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup-env.sh"
cd "$ROOT"
exec "${COMETLOCAL_VENV:-$ROOT/.venv}/bin/python" -m pytest tests "$@"
