#!/usr/bin/env bash
# services.sh [postgres] [mariadb] [redis] [fakesnow] [spark] [chromium] — install (from
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
SPARK_PORT=15002
LOG_DIR=/tmp/idemc-services
# Spark: pyspark's wheel carries Spark's jars, the Spark Connect server's
# among them; Delta Lake 4.0.x is the line built for Spark 4.0.x (Delta's
# compatibility table, docs.delta.io/releases). Kept outside the repo so a
# second run reuses the install.
PYSPARK_VERSION=4.0.1
DELTA_VERSION=4.0.0
SPARK_HOME_DIR=${IDEMC_SPARK_HOME:-$HOME/.cache/idemc/spark}
SPARK_WAREHOUSE=/tmp/idemc-spark/warehouse
IDEMC_SPARK_CONF=${IDEMC_SPARK_CONF:-}

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

spark_answers() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$SPARK_PORT" >/dev/null 2>&1
}

# spark_query: a trivial query through Spark Connect, with pyspark's own
# client (the server may listen before its session can run SQL).
spark_query() {
  timeout 60 "$SPARK_HOME_DIR/venv/bin/python" - >/dev/null 2>&1 <<EOF
from pyspark.sql import SparkSession
s = SparkSession.builder.remote("sc://127.0.0.1:$SPARK_PORT").getOrCreate()
assert s.sql("SELECT 1").collect()[0][0] == 1
EOF
}

# ensure_pyspark: a venv with the pinned pyspark (and the Spark Connect
# client's Python packages, for spark_query), installed once.
ensure_pyspark() {
  local venv=$SPARK_HOME_DIR/venv
  if "$venv/bin/python" -c "import pyspark, grpc, pandas, pyarrow; assert pyspark.__version__ == '$PYSPARK_VERSION'" >/dev/null 2>&1; then
    return 0
  fi
  mkdir -p "$SPARK_HOME_DIR"
  say "installing pyspark $PYSPARK_VERSION into $venv (about 850 MB, once)"
  local t0=$SECONDS
  { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } >"$LOG_DIR/spark-pip.log" 2>&1 &&
    "$venv/bin/pip" install -q "pyspark[connect]==$PYSPARK_VERSION" >>"$LOG_DIR/spark-pip.log" 2>&1 ||
    { tail -n 20 "$LOG_DIR/spark-pip.log" >&2; die "pip install pyspark $PYSPARK_VERSION failed (full log: $LOG_DIR/spark-pip.log)"; }
  say "pyspark installed in $((SECONDS - t0)) s"
}

# start_spark: a Spark Connect server on loopback with Delta Lake's catalog
# (the Delta jars resolved from Maven Central by spark-submit --packages,
# cached in $SPARK_HOME_DIR/ivy), a warehouse under /tmp, UTC sessions and
# small memory and shuffle settings for a 2-core test machine. Each Spark
# job costs about a second on a loaded 2-core machine, so the settings cut
# jobs per statement (measured from the event log, 22 statements of the
# kinds a unit runs: 110 jobs before, 70 after): adaptive query execution
# off (it re-plans every tiny query in extra jobs) and MERGE without
# materializing its source (an extra job per MERGE; idemc's sources are
# staged Delta tables, which do not change under the MERGE).
# One shuffle partition: every table here is a few rows. No generated code
# (spark.sql.codegen.factoryMode=NO_CODEGEN: Spark's interpreted projections,
# which its own tests run beside the generated ones): a JFR profile of the
# conformance suite spent 45 % of the server's CPU generating and compiling
# Java for rows that number a few (Delta's log replay and stats trackers,
# each query anew); four scenarios took 354 s with it and 242 s without.
# (C1-only JIT and the serial GC were tried in issue 12 and dropped:
# merge_null_keys took 367 s with them at load 5-9, against 101 s without
# at load 6-9.)
# Memory: a test suite creates and drops hundreds of Delta tables, and
# Delta keeps each table's log and cached snapshot: with 1 GB of heap the
# server ran out of memory after about 20 minutes of scenarios (and then
# answered "No active or default Spark session"). 3 GB, at most 64 tables'
# logs cached for 5 minutes, and a JVM that exits on running out of memory
# instead of limping on (the next start of this script restarts it).
# IDEMC_SPARK_CONF adds --conf options (experiments).
start_spark() {
  command -v java >/dev/null 2>&1 || ensure_packages openjdk-17-jre-headless
  local t0
  if ! spark_answers; then
    ensure_pyspark
    t0=$SECONDS
    local home
    home=$("$SPARK_HOME_DIR/venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
    [ -n "$(ls "$home"/jars/spark-connect_*.jar 2>/dev/null)" ] ||
      die "pyspark $PYSPARK_VERSION has no spark-connect jar in $home/jars"
    # The catalog is Spark's in-memory one: it forgets every table when the
    # server stops, so the files it left are removed too (else a CREATE
    # finds its location taken).
    rm -rf "$SPARK_WAREHOUSE"
    mkdir -p "$SPARK_WAREHOUSE"
    # Warnings only: Spark's INFO log costs CPU on every statement.
    mkdir -p "$SPARK_HOME_DIR/conf"
    cat >"$SPARK_HOME_DIR/conf/log4j2.properties" <<'EOF'
rootLogger.level = warn
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
EOF
    say "starting Spark Connect (pyspark $PYSPARK_VERSION, Delta $DELTA_VERSION) on 127.0.0.1:$SPARK_PORT"
    : >"$LOG_DIR/spark.log"
    SPARK_HOME=$home SPARK_CONF_DIR=$SPARK_HOME_DIR/conf SPARK_LOCAL_IP=127.0.0.1 setsid nohup "$home/bin/spark-submit" \
      --class org.apache.spark.sql.connect.service.SparkConnectServer \
      --name idemc-spark-connect --master 'local[2]' --driver-memory 3g \
      --packages "io.delta:delta-spark_2.13:$DELTA_VERSION,io.delta:delta-storage:$DELTA_VERSION" \
      --conf "spark.jars.ivy=$SPARK_HOME_DIR/ivy" \
      --conf spark.connect.grpc.binding.address=127.0.0.1 \
      --conf spark.connect.grpc.binding.port="$SPARK_PORT" \
      --conf spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension \
      --conf spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog \
      --conf spark.sql.warehouse.dir="$SPARK_WAREHOUSE" \
      --conf spark.sql.session.timeZone=UTC \
      --conf spark.sql.shuffle.partitions=1 \
      --conf spark.default.parallelism=1 \
      --conf spark.ui.enabled=false \
      --conf spark.sql.codegen.wholeStage=false \
      --conf spark.sql.codegen.factoryMode=NO_CODEGEN \
      --conf spark.connect.session.manager.defaultSessionTimeout=10m \
      --conf spark.databricks.delta.snapshotPartitions=1 \
      --conf spark.sql.adaptive.enabled=false \
      --conf spark.databricks.delta.merge.materializeSource=none \
      --conf spark.databricks.delta.delta.log.cacheSize=64 \
      --conf spark.databricks.delta.delta.log.cacheRetentionMinutes=5 \
      --conf spark.driver.extraJavaOptions='-Duser.timezone=UTC -XX:+ExitOnOutOfMemoryError' \
      $IDEMC_SPARK_CONF \
      spark-internal >"$LOG_DIR/spark.log" 2>&1 </dev/null &
    echo $! >"$LOG_DIR/spark.pid" # (spark-submit execs the JVM: kill this pid to stop it)
    # The first start resolves the Delta jars (a few MB) and warms the JVM.
    local deadline=$((SECONDS + 240))
    until spark_answers; do
      [ $SECONDS -lt $deadline ] || { tail -n 30 "$LOG_DIR/spark.log" >&2; die "Spark Connect did not listen on 127.0.0.1:$SPARK_PORT (waited 240 s)"; }
      sleep 1
    done
  fi
  ensure_pyspark
  local deadline=$((SECONDS + 120))
  until spark_query; do
    [ $SECONDS -lt $deadline ] || { tail -n 30 "$LOG_DIR/spark.log" >&2; die "Spark Connect listens but does not run SELECT 1 (waited 120 s)"; }
    sleep 2
  done
  [ -z "${t0:-}" ] || say "Spark Connect started in $((SECONDS - t0)) s (RSS $(ps -o rss= -p "$(cat "$LOG_DIR/spark.pid")" 2>/dev/null | awk '{printf "%d MB", $1/1024}'))"
  say "Spark Connect ready on 127.0.0.1:$SPARK_PORT"
  echo "export IDEMC_SPARK_URL='sc://127.0.0.1:$SPARK_PORT'"
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
      *) die "unknown service '$s' (want: postgres, mariadb, redis, fakesnow, spark, chromium)" ;;
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
      spark) start_spark ;;
    esac
  done
}

main "$@"
