#!/usr/bin/env bash
# The demo command (README): installs what it needs, then runs the example plans
# (example_plans/) in Chromium against the bundled demo portal, which the example
# suite serves itself on 127.0.0.1. Negative plans pass when their expected error
# code is raised. Run folders (trace, evidence) land in cometlocal-runs/.
#
# COMETLOCAL_BROWSER (issue 49): a comma list of browsers, e.g. "firefox" or
# "chromium,firefox". Each is passed as --cometlocal-browser NAME; with more than
# one, the run is split over four workers (-n 4, pytest-xdist; COMETLOCAL_DEMO_WORKERS sets
# another count): most of an example plan's time is waiting (negative plans wait out their
# timeouts), so four workers on two cores finish sooner than two. Unset: Chromium
# alone, as before. Plans pinned with `browser: {name: chromium}` get no Firefox item.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup-env.sh"
cd "$ROOT"
VENV="${COMETLOCAL_VENV:-$ROOT/.venv}"
"$VENV/bin/cometlocal" validate example_plans
browsers=()
IFS=',' read -r -a names <<< "${COMETLOCAL_BROWSER:-}"
for name in "${names[@]}"; do
  name="${name//[[:space:]]/}"
  [[ -n "$name" ]] && browsers+=(--cometlocal-browser "$name")
done
if (( ${#browsers[@]} > 2 )); then
  browsers+=(-n "${COMETLOCAL_DEMO_WORKERS:-4}")
fi
exec "$VENV/bin/python" -m pytest example_plans -v -rs "${browsers[@]}" "$@"
