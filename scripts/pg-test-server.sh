#!/usr/bin/env bash
# A throwaway local PostgreSQL server for tests, benchmarks and fault scripts.
#
#   scripts/pg-test-server.sh start [DIR]   # prints the server's URL (postgres://...) on stdout
#   scripts/pg-test-server.sh stop DIR      # stops it and deletes DIR
#   scripts/pg-test-server.sh restart DIR [immediate]   # pg_ctl restart (fault tests)
#   PGTEST_DURABLE=0 scripts/pg-test-server.sh start     # fsync off: faster, not crash safe
#
# Streaming replication (the failover tests, docs/deploy.md "Failover"):
#   scripts/pg-test-server.sh standby PRIMARY_DIR [DIR]   # pg_basebackup -R from a started primary,
#                                                         # a hot standby on its own port; prints its URL
#   scripts/pg-test-server.sh sync PRIMARY_DIR on|off     # synchronous_standby_names on the primary
#   scripts/pg-test-server.sh promote DIR                 # pg_ctl promote (waits until it accepts writes)
#   scripts/pg-test-server.sh kill DIR                    # kill -9 the server and its backends (host loss)
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

# A new server directory that the postgres user owns (DIR or a fresh temporary one; prefix $1).
new_dir() {
  dir="${2:-$(mktemp -d "${TMPDIR:-/tmp}/$1-XXXXXX")}"
  mkdir -p "$dir"
  chmod 700 "$dir"
  if [ "$(id -u)" = "0" ]; then chown postgres: "$dir"; fi
}

# Starts the server in $dir with $opts on $port, then prints its URL (and DIR on stderr).
launch() {
  as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$opts" -w -t 60 start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
  echo "$opts" >"$dir/opts"
  if [ -n "${1:-}" ]; then as_pg "$PGBIN/psql" -h "$dir" -p "$port" -U postgres -d postgres -qAt -c "$1" >/dev/null; fi
  url="postgres://postgres@127.0.0.1:$port/ucp"
  echo "$url" >"$dir/url"
  if [ "$(id -u)" = "0" ]; then chmod 755 "$dir" && chmod 644 "$dir/url" "$dir/opts"; fi
  echo "PGTEST_DIR=$dir" >&2
  echo "$url"
}

port_of() { sed -n 's/.*-c port=\([0-9]*\).*/\1/p' "$1/opts"; }

free_port() {
  node -e 'const s=require("node:net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

case "$cmd" in
  start)
    if [ -n "${TEST_DATABASE_URL:-}" ]; then echo "$TEST_DATABASE_URL"; exit 0; fi
    if [ -n "${DATABASE_URL:-}" ]; then echo "$DATABASE_URL"; exit 0; fi
    ensure_installed || { echo "pg-test-server: could not install PostgreSQL" >&2; exit 1; }
    dir="${2:-}"
    if [ -n "$dir" ] && [ -f "$dir/url" ] && [ -f "$dir/data/PG_VERSION" ]; then
      if ! as_pg "$PGBIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$(cat "$dir/opts")" -w -t 300 start >/dev/null \
          || { cat "$dir/server.log" >&2; exit 1; }
      fi
      echo "PGTEST_DIR=$dir" >&2
      cat "$dir/url"
      exit 0
    fi
    new_dir ucp-pg "${2:-}"
    as_pg "$PGBIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || as_pg "$PGBIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    port="$(free_port)"
    # Durable settings are the default (fsync on): the fault tests restart this server mid-load.
    # PGTEST_DURABLE=0 trades crash safety for speed (the plain integration suite never crashes it).
    opts="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=300 -c shared_buffers=64MB -c log_min_messages=warning"
    if [ "${PGTEST_DURABLE:-1}" = "0" ]; then opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"; fi
    launch 'create database ucp'
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
  standby)
    pdir="${2:?usage: pg-test-server.sh standby PRIMARY_DIR [DIR]}"
    find_bin
    pport="$(port_of "$pdir")"
    new_dir ucp-pg-standby "${3:-}"
    as_pg "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$pport" -U postgres -D "$dir/data" -R -X stream -c fast >"$dir/basebackup.log" 2>&1 \
      || { cat "$dir/basebackup.log" >&2; exit 1; }
    # The standby names itself, so the primary can wait for it (`sync PRIMARY_DIR on`).
    echo "primary_conninfo = 'host=127.0.0.1 port=$pport user=postgres application_name=ucp_standby'" | as_pg tee -a "$dir/data/postgresql.auto.conf" >/dev/null
    port="$(free_port)"
    opts="$(sed -e "s|-c port=[0-9]*|-c port=$port|" -e "s|-c unix_socket_directories=[^ ]*|-c unix_socket_directories=$dir|" "$pdir/opts")"
    launch
    ;;
  sync)
    dir="${2:?usage: pg-test-server.sh sync PRIMARY_DIR on|off}"
    names="''"; [ "${3:-on}" = "on" ] && names="'ucp_standby'"
    find_bin
    port="$(port_of "$dir")"
    as_pg "$PGBIN/psql" -h "$dir" -p "$port" -U postgres -d postgres -qAt \
      -c "alter system set synchronous_standby_names = $names" -c "alter system set synchronous_commit = on" -c 'select pg_reload_conf()' >/dev/null
    ;;
  promote)
    dir="${2:?usage: pg-test-server.sh promote DIR}"
    find_bin
    as_pg "$PGBIN/pg_ctl" -D "$dir/data" -w -t 60 promote >/dev/null
    ;;
  kill)
    dir="${2:?usage: pg-test-server.sh kill DIR}"
    pid="$(head -1 "$dir/data/postmaster.pid")"
    # The postmaster and every backend at once, as when the host is lost: no shutdown, no goodbye to clients.
    kill -9 "$pid" $(ps -o pid= --ppid "$pid") 2>/dev/null || true
    ;;
  *)
    echo "usage: pg-test-server.sh start [DIR] | stop DIR | restart DIR [fast|immediate] | standby PRIMARY_DIR [DIR] | sync DIR on|off | promote DIR | kill DIR" >&2
    exit 2
    ;;
esac
