# shellcheck shell=bash
# Throwaway PostgreSQL for the store tests. Meant to be sourced (`. .ci/postgres.sh`) by .ci/run
# before `npm test`: it starts a private cluster in a temp dir on a free 127.0.0.1 port, exports
# TEST_DATABASE_URL, and stops the cluster and removes the dir when the sourcing shell exits.
# Without PostgreSQL binaries it prints one line and leaves TEST_DATABASE_URL unset, so the
# PostgreSQL store tests skip (visibly).
#
# initdb refuses to run as root, so as root the cluster belongs to the `postgres` user
# (created if missing); as any other user it belongs to that user.

wyvern_pg_find_bin() {
  local dir
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    # Resolve symlinks: createdb lives next to the real pg_ctl, not always next to the link.
    dirname "$(readlink -f "$(command -v pg_ctl)")"
    return 0
  fi
  for dir in /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

wyvern_pg_free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close();});"
}

wyvern_pg_stop() {
  if [ -n "${WYVERN_PG_DIR:-}" ] && [ -d "$WYVERN_PG_DIR" ]; then
    wyvern_pg_as_owner "$WYVERN_PG_BIN/pg_ctl" -D "$WYVERN_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$WYVERN_PG_DIR"
  fi
  unset WYVERN_PG_DIR TEST_DATABASE_URL
}

wyvern_pg_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    if command -v runuser >/dev/null 2>&1; then
      runuser -u postgres -- "$@"
    else
      su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
    fi
  else
    "$@"
  fi
}

wyvern_pg_start() {
  local port db user
  if ! WYVERN_PG_BIN="$(wyvern_pg_find_bin)"; then
    echo "postgres.sh: PostgreSQL binaries not found; PostgreSQL store tests will be skipped."
    return 0
  fi
  if [ "$(id -u)" -eq 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
      useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    fi
    user=postgres
  else
    user="$(id -un)"
  fi

  WYVERN_PG_DIR="$(mktemp -d /tmp/wyvern-pg.XXXXXX)"
  chmod 755 "$WYVERN_PG_DIR"
  [ "$user" = postgres ] && chown postgres "$WYVERN_PG_DIR"
  port="$(wyvern_pg_free_port)"
  db=wyvern_test

  if ! wyvern_pg_as_owner "$WYVERN_PG_BIN/initdb" -D "$WYVERN_PG_DIR/data" -U "$user" \
    --auth=trust --encoding=UTF8 --no-sync >"$WYVERN_PG_DIR/initdb.log" 2>&1; then
    echo "postgres.sh: initdb failed; PostgreSQL store tests will be skipped:"
    tail -n 5 "$WYVERN_PG_DIR/initdb.log"
    wyvern_pg_stop
    return 0
  fi
  # fsync off: a test cluster is thrown away, so durability only costs time here.
  if ! wyvern_pg_as_owner "$WYVERN_PG_BIN/pg_ctl" -D "$WYVERN_PG_DIR/data" -l "$WYVERN_PG_DIR/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $WYVERN_PG_DIR -c fsync=off -c full_page_writes=off" \
    start >/dev/null; then
    echo "postgres.sh: pg_ctl start failed; PostgreSQL store tests will be skipped:"
    tail -n 5 "$WYVERN_PG_DIR/server.log"
    wyvern_pg_stop
    return 0
  fi
  if ! wyvern_pg_as_owner "$WYVERN_PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U "$user" "$db" 2>/dev/null &&
    ! wyvern_pg_as_owner psql -h 127.0.0.1 -p "$port" -U "$user" -d postgres -qc "CREATE DATABASE $db" >/dev/null; then
    echo "postgres.sh: could not create the test database; PostgreSQL store tests will be skipped."
    wyvern_pg_stop
    return 0
  fi

  export WYVERN_PG_DIR WYVERN_PG_BIN
  export TEST_DATABASE_URL="postgres://$user@127.0.0.1:$port/$db"
  trap wyvern_pg_stop EXIT
  echo "postgres.sh: PostgreSQL running for tests at $TEST_DATABASE_URL"
}

wyvern_pg_start
