package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/rogpeppe/go-internal/testscript"
)

// liveEngine is a server engine the live scripts run against.
type liveEngine struct {
	name   string // the condition a script tests: [postgres], [mysql]
	env    string // the variable holding the server's DSN
	driver string // the database/sql driver
}

var liveEngines = []liveEngine{
	{"postgres", "IDEMC_PG_DSN", "pgx"},
	{"mysql", "IDEMC_MYSQL_DSN", "mysql"},
}

// TestLiveScripts runs testdata/live/*.txtar once per live server whose DSN
// is set (scripts/services.sh prints them), each run in a database of its
// own, created for it and dropped after. A script's project.toml declares
// targets named postgres and mysql with dsn = "${DSN}"; IDEMC_TARGET picks
// the one of the run ($ENGINE). A script tests [postgres] or [mysql] to skip
// what does not apply, and reads or changes the database
// with livesql and livedump. With IDEMC_REQUIRE_LIVE=1 a missing server
// fails the test instead of skipping.
func TestLiveScripts(t *testing.T) {
	for _, le := range liveEngines {
		t.Run(le.name, func(t *testing.T) {
			base, admin := liveAdmin(t, le)
			n := 0
			testscript.Run(t, testscript.Params{
				Dir: "testdata/live",
				Setup: func(e *testscript.Env) error {
					n++
					return le.setup(e, admin, base, fmt.Sprintf("idemc_live_%d_%d", time.Now().UnixNano()%1e9, n))
				},
				Condition: func(cond string) (bool, error) {
					for _, x := range liveEngines {
						if cond == x.name {
							return cond == le.name, nil
						}
					}
					return false, fmt.Errorf("unknown condition %q", cond)
				},
				Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
					"exitcode": exitcode,
					"sleep":    sleep,
					"livesql":  func(ts *testscript.TestScript, neg bool, args []string) { le.exec(ts, neg, args) },
					"livedump": func(ts *testscript.TestScript, neg bool, args []string) { le.dump(ts, neg, args) },
					"testapi":  testAPI,
				},
			})
		})
	}
}

// setup creates the script's database and points $DSN at it.
func (le liveEngine) setup(e *testscript.Env, admin *sql.DB, base, db string) error {
	dsn, err := le.withDatabase(base, db)
	if err != nil {
		return err
	}
	if _, err := admin.Exec("CREATE DATABASE " + db); err != nil {
		return fmt.Errorf("creating the script's database: %v", err)
	}
	e.Defer(func() {
		q := "DROP DATABASE IF EXISTS " + db
		if le.name == "postgres" {
			q += " WITH (FORCE)"
		}
		_, _ = admin.Exec(q)
	})
	e.Setenv("IDEMC_TARGET", le.name)
	e.Setenv("DSN", dsn)
	e.Setenv("ENGINE", le.name)
	return nil
}

// withDatabase returns the DSN with its database replaced.
func (le liveEngine) withDatabase(dsn, db string) (string, error) {
	if le.name == "mysql" {
		c, err := mysql.ParseDSN(dsn)
		if err != nil {
			return "", err
		}
		c.DBName = db
		return c.FormatDSN(), nil
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", err
	}
	u.Path = "/" + db
	return u.String(), nil
}

func (le liveEngine) open(ts *testscript.TestScript) *sql.DB {
	db, err := sql.Open(le.driver, ts.Getenv("DSN"))
	ts.Check(err)
	return db
}

// exec: livesql 'STATEMENT' runs one statement on the script's database,
// as a change made outside idemc.
func (le liveEngine) exec(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: livesql 'STATEMENT'")
	}
	db := le.open(ts)
	defer db.Close()
	_, err := db.Exec(args[0])
	if neg {
		if err == nil {
			ts.Fatalf("livesql: the statement succeeded")
		}
		return
	}
	ts.Check(err)
}

// dump: livedump 'QUERY' FILE writes the query's rows, tab-separated with a
// header, to FILE (compare it with cmp). Engines render dates and times
// differently: cast them to text in the query.
func (le liveEngine) dump(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: livedump 'SELECT …' out.txt")
	}
	db := le.open(ts)
	defer db.Close()
	rows, err := db.Query(args[0])
	ts.Check(err)
	defer rows.Close()
	text, err := rowsText(rows)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(text), 0o644))
}

// liveAdmin is the live server of le, from its environment variable (the
// test skips when it is unset, or fails with IDEMC_REQUIRE_LIVE=1), and an
// open, pinged connection to it that the test closes.
func liveAdmin(t *testing.T, le liveEngine) (string, *sql.DB) {
	t.Helper()
	base := os.Getenv(le.env)
	if base == "" {
		if os.Getenv("IDEMC_REQUIRE_LIVE") == "1" {
			t.Fatalf("%s is not set and IDEMC_REQUIRE_LIVE=1: run eval \"$(scripts/services.sh)\"", le.env)
		}
		t.Skipf("%s is not set (eval \"$(scripts/services.sh)\" starts the servers)", le.env)
	}
	admin, err := sql.Open(le.driver, base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if err := admin.Ping(); err != nil {
		t.Fatalf("%s: %v", le.env, err)
	}
	return base, admin
}
