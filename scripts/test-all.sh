#!/usr/bin/env bash
# Installs what the tests need and runs every test runner, then prints one summary line
# `N passed, N failed` over all of them (CI reads only that line). Exit status is non-zero when
# anything failed or a runner could not run.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp

if [ ! -d node_modules ] || [ "${CI:-}" = "true" ]; then
  npm ci --no-audit --no-fund || { echo "npm ci failed"; echo "0 passed, 1 failed"; exit 1; }
fi

# Debian's Chromium for the browser tests (browser downloads are blocked; we are root in CI).
if ! command -v chromium >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
    || echo "warning: could not install chromium; browser tests will fail"
fi

passed=0; failed=0; status=0

# host.js must be built before the server serves it and before the size-budget test reads it.
if ! npx vite build --logLevel warn; then
  echo "host.js build failed"; failed=$((failed + 1)); status=1
fi

rm -f .tmp/vitest.json
npx vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest.json
vstatus=$?
if [ -f .tmp/vitest.json ]; then
  read -r vp vf < <(node -e 'const r=require("./.tmp/vitest.json");console.log(r.numPassedTests, r.numFailedTests + (r.numTotalTestSuites && r.testResults.filter(t=>t.status==="failed"&&!t.assertionResults.length).length))')
  passed=$((passed + vp)); failed=$((failed + vf))
  [ "$vstatus" -ne 0 ] && [ "$vf" -eq 0 ] && { failed=$((failed + 1)); }
else
  echo "vitest produced no report"; failed=$((failed + 1))
fi
[ "$vstatus" -ne 0 ] && status=1

if ls e2e/*.spec.ts >/dev/null 2>&1; then
  rm -f .tmp/playwright.json
  PLAYWRIGHT_JSON_OUTPUT_NAME=.tmp/playwright.json npx playwright test --reporter=list,json
  pstatus=$?
  if [ -f .tmp/playwright.json ]; then
    read -r pp pf < <(node -e 'const s=require("./.tmp/playwright.json").stats;console.log(s.expected + s.flaky, s.unexpected)')
    passed=$((passed + pp)); failed=$((failed + pf))
    [ "$pstatus" -ne 0 ] && [ "$pf" -eq 0 ] && { failed=$((failed + 1)); }
  else
    echo "playwright produced no report"; failed=$((failed + 1))
  fi
  [ "$pstatus" -ne 0 ] && status=1
fi

echo
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ] || status=1
exit $status
