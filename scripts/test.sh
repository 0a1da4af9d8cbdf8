#!/usr/bin/env bash
# The test command (README, .ci/run): installs what it needs, then runs the suite
# on three workers (pytest-xdist; a file's tests stay together on one worker). Three on two
# cores: much of a browser test is waiting (pages, timeouts, inner sessions starting), and a
# third worker fills those waits (measured in benchmarks/RESULTS.md, 2026-11-30 later).
# COMETLOCAL_TEST_WORKERS sets another count.
# Extra arguments go to pytest, e.g. `scripts/test.sh -k loader -x` (`-n 0` runs it serially).
# `--durations=10`: every run (CI's included) ends with its ten slowest tests (issue 50 keeps them in
# benchmarks/RESULTS.md, before and after a change to the suite's time).
# The Firefox tests skip with one line where Firefox cannot be driven; CI (.ci/run) exports
# COMETLOCAL_REQUIRE_FIREFOX=1, which makes them fail instead.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup-env.sh" --with-allure
cd "$ROOT"
exec "${COMETLOCAL_VENV:-$ROOT/.venv}/bin/python" -m pytest tests -n "${COMETLOCAL_TEST_WORKERS:-3}" --dist loadfile --durations=10 "$@"
