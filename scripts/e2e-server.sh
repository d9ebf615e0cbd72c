#!/usr/bin/env bash
# The server Playwright tests run against: a fresh embedded database, demo data, port 8391.
set -euo pipefail
cd "$(dirname "$0")/.."
export PORT="${PORT:-8391}"
export DATA_DIR="${DATA_DIR:-.tmp/e2e-db-$PORT}" # one per port: suites side by side must not share it
rm -rf "$DATA_DIR"
[ -f dist/host.js ] || npx vite build --logLevel warn
exec npx tsx server/main.ts
