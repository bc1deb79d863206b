#!/usr/bin/env bash
# Runs a command with the platform behind PgBouncer in transaction mode, as a deployment behind a
# transaction pooler runs (decision 159): PgBouncer listens on 127.0.0.1:$PGBOUNCER_PORT in front of
# DATABASE_DIRECT_URL's server (PGBOUNCER_PORT, a free port when unset), and the command gets DATABASE_URL (PgBouncer), DATABASE_DIRECT_URL
# and DATABASE_POOLER=transaction. PgBouncer stops when the command ends, however it ends.
#
#   tools/pooler/with-pgbouncer.sh npm test
#
# Needs Debian's pgbouncer (apt-get install pgbouncer) and a PostgreSQL that trusts local logins.
set -euo pipefail

direct_url=${DATABASE_DIRECT_URL:-postgres://postgres@127.0.0.1:5432/postgres}
port=${PGBOUNCER_PORT:-$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')}
pgbouncer_bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
if [ ! -x "$pgbouncer_bin" ]; then
  echo "with-pgbouncer: pgbouncer is not installed (apt-get install pgbouncer)" >&2
  exit 1
fi

# host, port and user of the direct URL: PgBouncer logs in to PostgreSQL as the client's user.
read -r pg_host pg_port pg_user < <(node -e '
  const url = new URL(process.argv[1]);
  console.log(url.hostname, url.port || "5432", decodeURIComponent(url.username) || "postgres");
' "$direct_url")

dir=$(mktemp -d)
chmod 755 "$dir"
cleanup() {
  if [ -f "$dir/pgbouncer.pid" ]; then kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true; fi
  sleep 0.2
  rm -rf "$dir"
}
trap cleanup EXIT

printf '"%s" ""\n' "$pg_user" > "$dir/users.txt"
cat > "$dir/pgbouncer.ini" <<INI
[databases]
; Every database name the tests make is forwarded to the same server.
* = host=$pg_host port=$pg_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
pool_mode = transaction
auth_type = trust
auth_file = $dir/users.txt
; The tests read SHOW CLIENTS on its admin console.
admin_users = $pg_user
max_client_conn = 2000
; PgBouncer's default pool; the apps' own pools (10 each) and their per-organization shares
; are what the tests measure, so the pooler must not be the narrower gate.
default_pool_size = 20
; No cap across databases: in transaction mode PgBouncer never holds more server connections
; than its clients would hold straight, and a cap made a test's requests wait for another test
; database's idle connections.
; Idle server connections of a database nobody uses any more go soon: PostgreSQL's
; max_connections counts them.
server_idle_timeout = 5
server_lifetime = 3600
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI

# PgBouncer will not run as root: it runs as the owner of the folder's files then.
run_as=()
if [ "$(id -u)" = 0 ]; then
  if ! id postgres >/dev/null 2>&1; then
    echo "with-pgbouncer: PgBouncer will not run as root, and there is no postgres user to run it as" >&2
    exit 1
  fi
  chown -R postgres "$dir"
  run_as=(-u postgres)
fi
"$pgbouncer_bin" -d "${run_as[@]}" "$dir/pgbouncer.ini"
listening=no
for _ in $(seq 1 50); do
  if [ -f "$dir/pgbouncer.pid" ] && kill -0 "$(cat "$dir/pgbouncer.pid")" 2>/dev/null &&
    node -e 'require("net").connect(+process.argv[1], "127.0.0.1").on("connect", () => process.exit(0)).on("error", () => process.exit(1))' "$port"; then
    listening=yes
    break
  fi
  sleep 0.1
done
if [ "$listening" != yes ]; then
  echo "with-pgbouncer: PgBouncer did not start on 127.0.0.1:$port:" >&2
  tail -20 "$dir/pgbouncer.log" >&2 || true
  exit 1
fi

pooled_url=$(node -e 'const url = new URL(process.argv[1]); url.hostname = "127.0.0.1"; url.port = process.argv[2]; console.log(url.toString())' "$direct_url" "$port")
echo "with-pgbouncer: PgBouncer $("$pgbouncer_bin" --version | head -1 | awk '{print $2}') in transaction mode on 127.0.0.1:$port, in front of $pg_host:$pg_port"
status=0
DATABASE_URL=$pooled_url DATABASE_DIRECT_URL=$direct_url DATABASE_POOLER=transaction "$@" || status=$?
if [ "$status" -ne 0 ] && [ -f "$dir/pgbouncer.log" ]; then
  echo "with-pgbouncer: the command failed ($status); PgBouncer's warnings and errors:" >&2
  grep -E 'WARNING|ERROR|FATAL' "$dir/pgbouncer.log" | tail -40 >&2 || true
fi
exit "$status"
