#!/usr/bin/env bash
# A throwaway local PostgreSQL server for tests, benchmarks and fault scripts.
#
#   scripts/pg-test-server.sh start [DIR]   # prints the server's URL (postgres://...) on stdout
#   scripts/pg-test-server.sh stop DIR      # stops it and deletes DIR
#   scripts/pg-test-server.sh restart DIR [immediate]   # pg_ctl restart (fault tests)
#   PGTEST_DURABLE=0 scripts/pg-test-server.sh start     # fsync off: faster, not crash safe
#
# `start DIR` on a DIR that already holds a server from an earlier `start DIR` starts it again if it
# is stopped and prints its URL (bench/scale.ts keeps its large database between runs that way).
#
# `start` honours an existing server: when TEST_DATABASE_URL or DATABASE_URL is set it prints that
# and does nothing else. Otherwise it installs Debian's postgresql when pg_ctl is missing, runs
# initdb as the `postgres` user into DIR (a new temporary directory by default), starts the server
# on a free 127.0.0.1 port with its unix socket inside DIR, creates the database `ucp` and prints
# `postgres://postgres@127.0.0.1:PORT/ucp`. DIR is printed on stderr as `PGTEST_DIR=...` and the
# URL is also written to DIR/url. Every failure exits non-zero (callers count it as a failure).
set -euo pipefail

cmd="${1:-start}"
PGBIN="${PGBIN:-}"

find_bin() {
  if [ -n "$PGBIN" ] && [ -x "$PGBIN/pg_ctl" ]; then return 0; fi
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/pg_ctl" ]; then PGBIN="$d"; fi
  done
  if [ -z "$PGBIN" ] && command -v pg_ctl >/dev/null 2>&1; then PGBIN="$(dirname "$(readlink -f "$(command -v pg_ctl)")")"; fi
  [ -n "$PGBIN" ] && [ -x "$PGBIN/pg_ctl" ]
}

# Runs a command as the postgres user when we are root (initdb refuses root), else as ourselves.
as_pg() {
  if [ "$(id -u)" = "0" ]; then
    if command -v runuser >/dev/null 2>&1; then runuser -u postgres -- "$@"; else su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; fi
  else
    "$@"
  fi
}

ensure_installed() {
  if find_bin; then return 0; fi
  if [ "$(id -u)" != "0" ]; then echo "pg-test-server: pg_ctl not found and not root: install postgresql" >&2; return 1; fi
  echo "pg-test-server: installing Debian postgresql..." >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >&2 || return 1
  find_bin
}

free_port() {
  node -e 'const s=require("node:net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

case "$cmd" in
  start)
    if [ -n "${TEST_DATABASE_URL:-}" ]; then echo "$TEST_DATABASE_URL"; exit 0; fi
    if [ -n "${DATABASE_URL:-}" ]; then echo "$DATABASE_URL"; exit 0; fi
    ensure_installed || { echo "pg-test-server: could not install PostgreSQL" >&2; exit 1; }
    dir="${2:-$(mktemp -d "${TMPDIR:-/tmp}/ucp-pg-XXXXXX")}"
    if [ -f "$dir/url" ] && [ -f "$dir/data/PG_VERSION" ]; then
      if ! as_pg "$PGBIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$(cat "$dir/opts")" -w -t 300 start >/dev/null \
          || { cat "$dir/server.log" >&2; exit 1; }
      fi
      echo "PGTEST_DIR=$dir" >&2
      cat "$dir/url"
      exit 0
    fi
    mkdir -p "$dir"
    chmod 700 "$dir"
    [ "$(id -u)" = "0" ] && chown postgres: "$dir"
    as_pg "$PGBIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || as_pg "$PGBIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    port="$(free_port)"
    # Durable settings are the default (fsync on): the fault tests restart this server mid-load.
    # PGTEST_DURABLE=0 trades crash safety for speed (the plain integration suite never crashes it).
    opts="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=300 -c shared_buffers=64MB -c log_min_messages=warning"
    if [ "${PGTEST_DURABLE:-1}" = "0" ]; then opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"; fi
    as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$opts" -w -t 60 start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    echo "$opts" >"$dir/opts"
    as_pg "$PGBIN/psql" -h "$dir" -p "$port" -U postgres -d postgres -qAt -c 'create database ucp' >/dev/null
    url="postgres://postgres@127.0.0.1:$port/ucp"
    echo "$url" >"$dir/url"
    [ "$(id -u)" = "0" ] && chmod 755 "$dir" && chmod 644 "$dir/url" "$dir/opts"
    echo "PGTEST_DIR=$dir" >&2
    echo "$url"
    ;;
  stop)
    dir="${2:?usage: pg-test-server.sh stop DIR}"
    find_bin || true
    if [ -f "$dir/data/postmaster.pid" ] && [ -n "$PGBIN" ]; then
      as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 \
        || as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  restart)
    dir="${2:?usage: pg-test-server.sh restart DIR [fast|immediate]}"
    mode="${3:-fast}"
    find_bin
    as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m "$mode" -w -t 30 stop >/dev/null
    as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$(cat "$dir/opts")" -w -t 60 start >/dev/null
    ;;
  *)
    echo "usage: pg-test-server.sh start [DIR] | stop DIR | restart DIR [fast|immediate]" >&2
    exit 2
    ;;
esac
