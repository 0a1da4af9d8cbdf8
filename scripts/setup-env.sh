#!/usr/bin/env bash
# Prepare everything the tests and the demo need, idempotently:
#   - a virtual environment in .venv with the package and its test extras, with the
#     pins of scripts/constraints-test.txt (playwright 1.64.1: issue 49, the last
#     Playwright that drives Debian's Firefox ESR; an installed 1.65 is downgraded);
#   - a Chromium: Playwright's own when it can be installed, else Debian's
#     `chromium` package when apt is available;
#   - Debian's `firefox-esr` when apt is available (the Firefox tests and the demo's
#     Firefox half), unless COMETLOCAL_NO_FIREFOX=1;
#   - Debian's `xvfb` (a virtual display for the headed tests) when apt is available;
#   - with --with-allure (scripts/test.sh only): Allure's two command-line tools,
#     which only the report-rendering tests use.
# Run by scripts/test.sh, scripts/demo.sh and scripts/bench.sh; safe to run again.
# Each stage says what it does, how long it usually takes the first time, and how
# long it took: a first set-up downloads about 300 MB (Python packages and a Chromium),
# plus about 70 MB for firefox-esr.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${COMETLOCAL_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"
WITH_ALLURE=0
[ "${1:-}" = "--with-allure" ] && WITH_ALLURE=1

START=$SECONDS
log() { printf '[setup %3ds] %s\n' "$((SECONDS - START))" "$*" >&2; }

if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  log "Python 3.11 or newer is required ($("$PY" --version 2>&1))"; exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  log "creating virtual environment $VENV"
  "$PY" -m venv "$VENV"
fi
if "$VENV/bin/python" -c 'import pytest_cometlocal, playwright, xdist' 2>/dev/null; then
  log "checking pytest-cometlocal and its test dependencies, with the pins of scripts/constraints-test.txt (a few seconds)"
else
  log "installing pytest-cometlocal and its test dependencies (first time: 1-4 minutes, ~150 MB)"
fi
# Always run, also on the "checking" path: pip then applies the constraints to what is already installed
# (an earlier Playwright 1.65 is downgraded to the pin); with nothing to change it takes a few seconds.
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT[test]" \
    -c "$ROOT/scripts/constraints-test.txt" 2>&1 \
  | grep -v "^WARNING: Location" >&2 || true
"$VENV/bin/python" -c 'import pytest_cometlocal, playwright, pydantic, yaml, allure_pytest' \
  || { log "dependency installation failed"; exit 1; }

have_chromium() {
  "$VENV/bin/python" - <<'PY' 2>/dev/null
import os, shutil, sys
from pathlib import Path
env = os.environ.get("COMETLOCAL_CHROMIUM")
if env and Path(env).exists():
    sys.exit(0)
cache = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH", Path.home() / ".cache" / "ms-playwright"))
if any(cache.glob("chromium-*/chrome-linux*/chrome")):
    sys.exit(0)
for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
    if shutil.which(name):
        sys.exit(0)
sys.exit(1)
PY
}

if have_chromium; then
  log "Chromium found"
else
  log "no Chromium found; trying Playwright's own build (first time: about a minute, ~150 MB)"
  if timeout 300 "$VENV/bin/python" -m playwright install chromium >/dev/null 2>&1 && have_chromium; then
    log "installed Playwright's Chromium"
  elif command -v apt-get >/dev/null 2>&1; then
    log "Playwright's download is not available; installing Debian's chromium with apt-get (first time: 1-3 minutes)"
    SUDO=""
    if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
    have_chromium || { log "chromium was installed but cannot be found"; exit 1; }
    log "installed Debian's chromium"
  else
    log "no Chromium could be installed: set COMETLOCAL_CHROMIUM to a Chromium binary"; exit 1
  fi
fi

# Debian's Firefox ESR for the Firefox tests (tests/browsers, the security tests' [firefox] half) and the
# demo's Firefox items, driven through WebDriver BiDi (Playwright's own Firefox build is not downloaded
# here; the plugin uses it when present). Optional: without it those tests skip with one line (they fail
# in CI, which sets COMETLOCAL_REQUIRE_FIREFOX=1).
have_firefox() {
  if [ -n "${COMETLOCAL_FIREFOX:-}" ]; then [ -x "$COMETLOCAL_FIREFOX" ] || command -v "$COMETLOCAL_FIREFOX" >/dev/null 2>&1; return; fi
  command -v firefox-esr >/dev/null 2>&1 || command -v firefox >/dev/null 2>&1 || [ -x /usr/bin/firefox-esr ]
}

if [ "${COMETLOCAL_NO_FIREFOX:-}" = 1 ]; then
  log "COMETLOCAL_NO_FIREFOX=1: not looking for Firefox (the Firefox tests will skip)"
elif have_firefox; then
  log "Firefox found"
elif command -v apt-get >/dev/null 2>&1; then
  log "no Firefox found; installing Debian's firefox-esr with apt-get (first time: 30-90 s, ~70 MB)"
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  if { $SUDO apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq firefox-esr >/dev/null; } \
      && have_firefox; then
    log "installed Debian's firefox-esr"
  else
    log "firefox-esr could not be installed: the Firefox tests will skip (set COMETLOCAL_FIREFOX to a Firefox binary)"
  fi
else
  log "no Firefox and no apt-get: the Firefox tests will skip (set COMETLOCAL_FIREFOX to a Firefox binary)"
fi

# Allure's command-line tools from the npm registry, for the tests that render real
# reports (tests/plugin/test_allure_render.py): Allure 2 (allure-commandline, runs on
# Java) and Allure 3 (allure, runs on Node 20+). Only the test command asks for them;
# the demo never renders a report. Optional: without them those tests skip, naming
# what is missing.
# Debian's xvfb: a virtual display for the headed tests (tests/plugin/test_pause.py: the
# pause and step modes need a headed Chromium). Optional: without it those tests skip.
if command -v Xvfb >/dev/null 2>&1; then
  log "Xvfb found"
elif command -v apt-get >/dev/null 2>&1; then
  log "installing Debian's xvfb with apt-get for the headed tests (first time: 10-60 s)"
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  { $SUDO apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq xvfb >/dev/null; } \
    || log "xvfb could not be installed: the headed tests will skip"
else
  log "no Xvfb and no apt-get: the headed tests will skip"
fi

TOOLS="$ROOT/.tools/node_modules"
if [ "$WITH_ALLURE" = 1 ] && { [ ! -f "$TOOLS/allure/cli.js" ] || [ ! -f "$TOOLS/allure-commandline/bin/allure" ]; } \
    && command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
  log "installing Allure 2 and Allure 3 command-line tools into .tools/ for the report-rendering tests (first time: 10-60 s)"
  timeout 300 npm install --prefix "$ROOT/.tools" --no-audit --no-fund --loglevel=error \
      allure@3 allure-commandline@2 >/dev/null 2>&1 \
    || log "Allure's command-line tools could not be installed: the report rendering tests will skip"
fi
log "ready"
