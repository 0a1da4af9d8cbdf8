#!/usr/bin/env bash
# The demo command (README): installs what it needs, then runs the example plans.
# Until the browser executor lands, valid plans are reported as skipped
# ("running plans in a browser is not available in this version") and
# only validation is exercised.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup-env.sh"
cd "$ROOT"
VENV="${COMETLOCAL_VENV:-$ROOT/.venv}"
"$VENV/bin/cometlocal" validate example_plans
exec "$VENV/bin/python" -m pytest example_plans -v -rs "$@"
