#!/usr/bin/env bash
# Refreshes the vendored axe-core (the accessibility_clean condition's engine) from the npm
# package of that name, at the version pinned below. Nothing is fetched at run time: the
# plugin ships these files as package data (pyproject's package-data).
#
#   bash scripts/refresh-axe.sh              # the pinned version, again (checks nothing changed)
#   AXE_VERSION=4.15.0 bash scripts/refresh-axe.sh   # a new version: then pin it below too
#
# It writes, in pytest_cometlocal/executor/audits/vendor/:
#   axe.min.js             the engine, as published
#   LICENSE                axe-core's licence (MPL-2.0), as published
#   LICENSE-3RD-PARTY.txt  the licences of what axe-core bundles, as published
#   axe.lock.json          version, sha256 of axe.min.js, npm integrity, rule ids
# tests/unit/test_axe_vendor.py checks the sha256 and the rule ids against the file; after a new
# version, update AXE_RULE_IDS in pytest_cometlocal/contract/model/audits.py from the lock's
# "rules" (the validator's rule AXE_RULE), and the version in docs/pictures-and-accessibility.md.
set -euo pipefail
AXE_VERSION="${AXE_VERSION:-4.14.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/pytest_cometlocal/executor/audits/vendor"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
npm pack --silent "axe-core@$AXE_VERSION" > packed.txt
TARBALL="$(tail -n 1 packed.txt)"
INTEGRITY="$(npm view "axe-core@$AXE_VERSION" dist.integrity)"
tar xzf "$TARBALL"
grep -q "^/\*! axe v$AXE_VERSION\$" <(head -n 1 package/axe.min.js) || { echo "axe.min.js is not v$AXE_VERSION" >&2; exit 1; }
mkdir -p "$DEST"
cp package/axe.min.js package/LICENSE package/LICENSE-3RD-PARTY.txt "$DEST/"
SHA="$(sha256sum "$DEST/axe.min.js" | cut -d' ' -f1)"
RULES="$(node -e 'global.window = undefined; const a = require(process.argv[1]);
  console.log(JSON.stringify(a.getRules().map(r => r.ruleId).sort()))' "$WORK/package/axe.js")"
python3 - "$DEST/axe.lock.json" "$AXE_VERSION" "$SHA" "$INTEGRITY" "$RULES" <<'PY'
import json, sys
path, version, sha, integrity, rules = sys.argv[1:]
lock = {"package": "axe-core", "version": version, "file": "axe.min.js", "sha256": sha,
        "npm_integrity": integrity, "license": "MPL-2.0", "rules": json.loads(rules)}
with open(path, "w", encoding="utf-8") as f:
    json.dump(lock, f, indent=1)
    f.write("\n")
PY
echo "axe-core $AXE_VERSION vendored in $DEST (sha256 $SHA)"
