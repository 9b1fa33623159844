#!/usr/bin/env bash
# services.sh [postgres] [mariadb] [redis] [spark] [chromium] — install (from
# Debian's packages) and start the servers the live test suites need, on
# loopback only, without systemd. No argument means every server the tests
# need today. chromium is no server: it installs headless Chromium for the
# docs site's browser test (cmd/idemc TestDocsChromium) and prints its path.
#
# Safe to run twice and on a machine where the servers already run: a server
# that answers is left alone. Progress goes to stderr; stdout carries only the
# `export` lines, so that `eval "$(scripts/services.sh)"` sets the DSNs.
set -euo pipefail

PG_PORT=5432
MYSQL_PORT=3306
REDIS_PORT=6379
LOG_DIR=/tmp/idemc-services

say() { echo "services: $*" >&2; }
die() { echo "services: ERROR: $*" >&2; exit 1; }

# wait_for NAME LOG CMD...: poll CMD for up to 60 s; on timeout name the
# server, show the end of its log and fail.
wait_for() {
  local name=$1 log=$2; shift 2
  local deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  echo "services: ERROR: $name did not come up on 127.0.0.1 (waited 60 s)" >&2
  if [ -n "$log" ] && [ -r "$log" ]; then
    echo "services: last lines of $log:" >&2
    tail -n 20 "$log" >&2
  fi
  exit 1
}

# ensure_packages PKG...: install those of PKG that are missing, with one
# apt-get update. Services are kept from starting themselves during the
# install (policy-rc.d), because this script starts them its own way.
ensure_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "packages missing (${missing[*]}); run as root to install them"
  say "installing ${missing[*]} from Debian's packages"
  local made_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  local rc=0
  {
    DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  } >"$LOG_DIR/apt.log" 2>&1 || rc=$?
  [ -n "$made_policy" ] && rm -f /usr/sbin/policy-rc.d
  if [ $rc -ne 0 ]; then
    tail -n 20 "$LOG_DIR/apt.log" >&2
    die "apt-get install ${missing[*]} failed (full log: $LOG_DIR/apt.log)"
  fi
}

pg_answers() { pg_isready -h 127.0.0.1 -p "$PG_PORT" -t 2 -q >/dev/null 2>&1; }

start_postgres() {
  if ! command -v pg_isready >/dev/null 2>&1 || ! pg_answers; then
    local ver
    ver=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$ver" ]; then
      ver=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
      say "creating PostgreSQL $ver cluster main"
      pg_createcluster "$ver" main >&2
    fi
    local conf=/etc/postgresql/$ver/main
    # Loopback only, and a test server: durability is not what it is for.
    cat >"$conf/conf.d/idemc.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PG_PORT
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
    # Trust on loopback and the local socket; the previous rules stay below.
    if ! grep -q '^# idemc: trust' "$conf/pg_hba.conf"; then
      local hba
      hba=$(cat "$conf/pg_hba.conf")
      {
        echo "# idemc: trust on loopback (test server)"
        echo "local all all trust"
        echo "host  all all 127.0.0.1/32 trust"
        echo "host  all all ::1/128 trust"
        echo "$hba"
      } >"$conf/pg_hba.conf"
    fi
    say "starting PostgreSQL $ver"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main start >&2 ||
      pg_ctlcluster --skip-systemctl-redirect "$ver" main restart >&2 || true
    wait_for PostgreSQL "/var/log/postgresql/postgresql-$ver-main.log" pg_answers
  fi
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1 ||
    psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qc "CREATE DATABASE test" >&2 ||
    die "PostgreSQL answers but database test could not be created (is trust auth for postgres on 127.0.0.1 set?)"
  say "PostgreSQL ready on 127.0.0.1:$PG_PORT"
  echo "export IDEMC_PG_DSN='postgres://postgres@127.0.0.1:$PG_PORT/test?sslmode=disable'"
}

mysql_answers() { timeout 3 mariadb-admin --connect-timeout=2 -h 127.0.0.1 -P "$MYSQL_PORT" -u root ping >/dev/null 2>&1; }

start_mariadb() {
  if ! command -v mariadb-admin >/dev/null 2>&1 || ! mysql_answers; then
    install -d -o mysql -g mysql /run/mysqld
    if [ ! -d /var/lib/mysql/mysql ]; then
      say "initialising the MariaDB data directory"
      mariadb-install-db --user=mysql --datadir=/var/lib/mysql >"$LOG_DIR/mariadb-install.log" 2>&1 ||
        { tail -n 20 "$LOG_DIR/mariadb-install.log" >&2; die "mariadb-install-db failed"; }
    fi
    if ! mariadb-admin --protocol=socket -u root ping >/dev/null 2>&1; then
      say "starting MariaDB"
      : >"$LOG_DIR/mariadb.log"
      chown mysql:mysql "$LOG_DIR/mariadb.log"
      # A test server: the InnoDB log is flushed once a second, not per commit.
      start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- \
        --user=mysql --bind-address=127.0.0.1 --port="$MYSQL_PORT" \
        --socket=/run/mysqld/mysqld.sock --pid-file=/run/mysqld/mysqld.pid \
        --log-error="$LOG_DIR/mariadb.log" --innodb-flush-log-at-trx-commit=2 \
        --max-connections=300 >&2
    fi
    wait_for MariaDB "$LOG_DIR/mariadb.log" mariadb-admin --protocol=socket -u root ping
    # Debian's root logs in by unix socket only; the tests connect over TCP
    # as root with an empty password.
    mariadb --protocol=socket -u root -e "
      ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('') OR unix_socket;
      CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';
      GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
      FLUSH PRIVILEGES;" ||
      die "MariaDB answers on its socket but root over TCP could not be set up"
    wait_for MariaDB "$LOG_DIR/mariadb.log" mysql_answers
  fi
  mariadb -h 127.0.0.1 -P "$MYSQL_PORT" -u root -e "CREATE DATABASE IF NOT EXISTS test" ||
    die "MariaDB answers but database test could not be created"
  say "MariaDB ready on 127.0.0.1:$MYSQL_PORT"
  echo "export IDEMC_MYSQL_DSN='root@tcp(127.0.0.1:$MYSQL_PORT)/test'"
}

redis_answers() { [ "$(timeout 2 redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

start_redis() {
  if ! command -v redis-cli >/dev/null 2>&1 || ! redis_answers; then
    say "starting Redis"
    : >"$LOG_DIR/redis.log"
    redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" \
      --save '' --appendonly no --dir "$LOG_DIR" --logfile "$LOG_DIR/redis.log" >&2
    wait_for Redis "$LOG_DIR/redis.log" redis_answers
  fi
  # Nothing on disk, also for a server this script did not start.
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" config set save '' >/dev/null
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" config set appendonly no >/dev/null
  say "Redis ready on 127.0.0.1:$REDIS_PORT"
  echo "export IDEMC_REDIS_URL='redis://127.0.0.1:$REDIS_PORT/0'"
}

# ensure_chromium: Debian's chromium package, for `idemc docs`'s browser
# test; it starts nothing, and exports the binary's path for the test.
ensure_chromium() {
  command -v chromium >/dev/null 2>&1 || ensure_packages chromium
  local bin
  bin=$(command -v chromium) || die "chromium is installed but not on PATH"
  say "chromium ready: $("$bin" --version 2>/dev/null | head -n 1)"
  echo "export IDEMC_CHROMIUM='$bin'"
}

# start_fakesnow: the Snowflake emulator for adapters/snowflake's
# TestEmulatorConformance (`services.sh fakesnow`, and with no argument:
# IDEMC_REQUIRE_LIVE=1 makes that test fail without it).
# fakesnow (PyPI) answers Snowflake's HTTP protocol over DuckDB, in memory;
# it is pip-installed, pinned, into a venv under ~/.cache/idemc (never the
# repo). fakesnow 0.12.1 imports snowflake.connector.converter, which the
# 5.x connectors dropped: the connector is pinned below 5.
FAKESNOW_PORT=${IDEMC_FAKESNOW_PORT:-18765}
FAKESNOW_VERSION=0.12.1
FAKESNOW_CONNECTOR='snowflake-connector-python==4.8.1'

fakesnow_answers() { (exec 3<>"/dev/tcp/127.0.0.1/$FAKESNOW_PORT") 2>/dev/null; }

start_fakesnow() {
  local venv="${XDG_CACHE_HOME:-$HOME/.cache}/idemc/fakesnow"
  if ! fakesnow_answers; then
    if [ ! -x "$venv/bin/fakesnow" ] || ! "$venv/bin/pip" show fakesnow 2>/dev/null | grep -q "^Version: $FAKESNOW_VERSION\$"; then
      command -v python3 >/dev/null 2>&1 || die "fakesnow needs python3 (3.11 or newer)"
      say "installing fakesnow $FAKESNOW_VERSION into $venv"
      python3 -m venv "$venv" >&2 || die "python3 -m venv $venv failed"
      "$venv/bin/pip" install -q "fakesnow[server]==$FAKESNOW_VERSION" "$FAKESNOW_CONNECTOR" >"$LOG_DIR/fakesnow-pip.log" 2>&1 ||
        { tail -n 20 "$LOG_DIR/fakesnow-pip.log" >&2; die "pip install fakesnow failed (log: $LOG_DIR/fakesnow-pip.log)"; }
    fi
    say "starting fakesnow on 127.0.0.1:$FAKESNOW_PORT"
    setsid nohup "$venv/bin/fakesnow" -s --host 127.0.0.1 -p "$FAKESNOW_PORT" >"$LOG_DIR/fakesnow.log" 2>&1 </dev/null &
    wait_for fakesnow "$LOG_DIR/fakesnow.log" fakesnow_answers
  fi
  say "fakesnow answers on 127.0.0.1:$FAKESNOW_PORT"
  echo "export IDEMC_SNOWFLAKE_EMULATOR_DSN='idemc:idemc@127.0.0.1:$FAKESNOW_PORT/IDEMC?account=fakesnow&protocol=http'"
}

main() {
  mkdir -p "$LOG_DIR"
  local want=("$@")
  [ ${#want[@]} -eq 0 ] && want=(postgres mariadb redis fakesnow)
  local s pkgs=()
  for s in "${want[@]}"; do
    case "$s" in
      postgres | postgresql) pkgs+=(postgresql) ;;
      mariadb | mysql) pkgs+=(mariadb-server mariadb-client) ;;
      redis) pkgs+=(redis-server) ;;
      fakesnow) ;; # pip, into a venv: start_fakesnow
      spark | chromium) ;; # chromium: ensure_chromium installs it, once
      *) die "unknown service '$s' (want: postgres, mariadb, redis, spark, chromium)" ;;
    esac
  done
  [ ${#pkgs[@]} -gt 0 ] && ensure_packages "${pkgs[@]}"
  for s in "${want[@]}"; do
    case "$s" in
      postgres | postgresql) start_postgres ;;
      mariadb | mysql) start_mariadb ;;
      redis) start_redis ;;
      chromium) ensure_chromium ;;
      fakesnow) start_fakesnow ;;
      spark) die "spark: the local Spark Connect server is not set up by this script yet (the live-Spark issue adds it)" ;;
    esac
  done
}

main "$@"
