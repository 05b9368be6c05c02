#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests and prints its URL.
#
# Needs Debian's postgresql package. PostgreSQL refuses to run as root, so the
# cluster belongs to the postgres user; it listens on loopback only, trusts
# local connections, and lives in a temporary directory that `stop` removes.
#
#   url=$(crates/store/tests/start-postgres.sh start)   # then
#   RIVERSE_TEST_POSTGRES_URL=$url cargo test ...
#   crates/store/tests/start-postgres.sh stop
set -euo pipefail
dir=${RIVERSE_TEST_POSTGRES_DIR:-/tmp/riverse-test-postgres}
port=${RIVERSE_TEST_POSTGRES_PORT:-54329}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "${1:-start}" in
  start)
    if [ ! -f "$dir/PG_VERSION" ]; then
      mkdir -p "$dir"
      [ "$(id -u)" = 0 ] && chown postgres: "$dir"
      as_postgres "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 >/dev/null
    fi
    as_postgres "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w \
      -o "-p $port -c listen_addresses=127.0.0.1 -k $dir -c fsync=off -c max_connections=200" start >/dev/null
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_postgres "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null
    rm -rf "$dir"
    ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
