#!/usr/bin/env bash
# dbt.sh — install pinned dbt-core + dbt-duckdb into a virtual environment for
# the dbt comparison test (cmd/idemc TestDBTCompare) and link it as
# target/dbt in the repo. The venv lives under ~/.cache (like fakesnow's in
# services.sh), so a second run, and CI with a warm cache, reuse it. stdout
# carries only an export line: eval "$(scripts/dbt.sh)" sets IDEMC_DBT.
set -euo pipefail
cd "$(dirname "$0")/.."

# dbt-duckdb 1.11.1 is the newest adapter (PyPI, 2026-10); dbt-core 1.11.x
# is the line it is released against. duckdb is pinned to 1.5.6, the DuckDB
# inside the Go module (duckdb-go-bindings v0.10506.0), so the Go test can
# open the file dbt writes.
DBT_CORE_VERSION=1.11.16
DBT_DUCKDB_VERSION=1.11.1
DUCKDB_VERSION=1.5.6

say() { echo "dbt.sh: $*" >&2; }
die() { echo "dbt.sh: ERROR: $*" >&2; exit 1; }

venv="${XDG_CACHE_HOME:-$HOME/.cache}/idemc/dbt-$DBT_CORE_VERSION-$DBT_DUCKDB_VERSION"
# .installed is written last: an install that was killed midway is redone.
# (The venv is made in place: its scripts' #! lines name its path.)
if [ ! -e "$venv/.installed" ]; then
  command -v python3 >/dev/null 2>&1 || die "dbt needs python3 (3.10 or newer)"
  start=$SECONDS
  say "installing dbt-core $DBT_CORE_VERSION and dbt-duckdb $DBT_DUCKDB_VERSION into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  log=$(mktemp)
  "$venv/bin/pip" install -q "dbt-core==$DBT_CORE_VERSION" "dbt-duckdb==$DBT_DUCKDB_VERSION" "duckdb==$DUCKDB_VERSION" >"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; die "pip install failed (log: $log)"; }
  touch "$venv/.installed"
  say "installed in $((SECONDS - start)) s"
fi
mkdir -p target
ln -sfn "$venv" target/dbt
echo "export IDEMC_DBT='$venv/bin/dbt'"
