#!/usr/bin/env bash
# The demo command (README): installs what it needs, then runs the example plans
# (example_plans/) in Chromium against the bundled demo portal, which the example
# suite serves itself on 127.0.0.1. Negative plans pass when their expected error
# code is raised. Run folders (trace, evidence) land in cometlocal-runs/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup-env.sh"
cd "$ROOT"
VENV="${COMETLOCAL_VENV:-$ROOT/.venv}"
"$VENV/bin/cometlocal" validate example_plans
exec "$VENV/bin/python" -m pytest example_plans -v -rs "$@"
