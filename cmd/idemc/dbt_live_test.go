package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// TestDBTLive builds testdata/dbt/jaffle through idemc on each live server
// (PostgreSQL, MariaDB), in a database of its own, with a profiles.yml
// whose connection fields are env_var() calls filled from IDEMC_PG_DSN or
// IDEMC_MYSQL_DSN, and compares every relation with the DuckDB build, row
// for row (issue 15, item 4). No dbt is needed.
func TestDBTLive(t *testing.T) {
	duckDir := copyProject(t)
	duckFile := filepath.Join(duckDir, "idemc.duckdb")
	t.Setenv("JAFFLE_DUCKDB_PATH", duckFile)
	idemcBuild(t, duckDir)
	want := dumpDuckDB(t, duckFile)
	for _, le := range liveEngines {
		t.Run(le.name, func(t *testing.T) {
			base, admin := liveAdmin(t, le)
			dbName := fmt.Sprintf("idemc_dbt_%d", time.Now().UnixNano()%1e9)
			if _, err := admin.Exec("CREATE DATABASE " + dbName); err != nil {
				t.Fatal(err)
			}
			defer func() {
				q := "DROP DATABASE IF EXISTS " + dbName
				if le.name == "postgres" {
					q += " WITH (FORCE)"
				}
				_, _ = admin.Exec(q)
			}()
			dir := copyProject(t)
			schema := livePofile(t, le.name, base, dbName, dir)
			idemcBuild(t, dir)
			dsn, err := le.withDatabase(base, dbName)
			if err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open(le.driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			got := dumpRelations(t, db, schema, fmt.Sprintf(
				"SELECT table_name FROM information_schema.tables WHERE table_schema = '%s'", schema))
			compareRelations(t, "duckdb", want, le.name, got)
		})
	}
}

// livePofile writes the project's profiles.yml for engine: host, port,
// user, password and database each from an environment variable set here
// from the server's DSN (as a CI secret would be), and returns the schema
// the relations are written to.
func livePofile(t *testing.T, engine, base, dbName, dir string) string {
	var host, port, user, pass, schema, typ, dbKey string
	switch engine {
	case "postgres":
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		host, port, user = u.Hostname(), u.Port(), u.User.Username()
		pass, _ = u.User.Password()
		typ, schema, dbKey = "postgres", "public", "dbname: \"{{ env_var('JAFFLE_DB') }}\"\n      sslmode: disable"
	case "mysql":
		c, err := mysql.ParseDSN(base)
		if err != nil {
			t.Fatal(err)
		}
		host, port, _ = strings.Cut(c.Addr, ":")
		user, pass = c.User, c.Passwd
		// dbt-mysql's schema is the database.
		typ, schema, dbKey = "mariadb", dbName, ""
	}
	t.Setenv("JAFFLE_HOST", host)
	t.Setenv("JAFFLE_PORT", port)
	t.Setenv("JAFFLE_USER", user)
	t.Setenv("JAFFLE_PASSWORD", pass)
	t.Setenv("JAFFLE_DB", dbName)
	t.Setenv("JAFFLE_RAW_SCHEMA", schema)
	hostKey := "host"
	if engine == "mysql" {
		hostKey = "server"
	}
	profile := fmt.Sprintf(`jaffle:
  target: live
  outputs:
    live:
      type: %s
      %s: "{{ env_var('JAFFLE_HOST') }}"
      port: "{{ env_var('JAFFLE_PORT') | as_number }}"
      user: "{{ env_var('JAFFLE_USER') }}"
      password: "{{ env_var('JAFFLE_PASSWORD', '') }}"
      schema: %s
      threads: 2
      %s
`, typ, hostKey, schema, dbKey)
	if err := os.WriteFile(filepath.Join(dir, "profiles.yml"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	return schema
}
