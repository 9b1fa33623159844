package main

import (
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/idemc/idemc/internal/faultinject"

	"github.com/idemc/idemc/adapters/sqlgen"
)

// TestMain lets testscript run the real command line in this test binary as
// "idemc", exactly as a user runs it.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"idemc": func() { os.Exit(runWith(os.Args[1:], os.Stdout, os.Stderr, faultinject.FromEnv())) },
	})
}

// TestScripts runs testdata/script/*.txtar: each is a project and the
// commands a user types, with the output and exit codes they should see.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: false,
		Setup: func(e *testscript.Env) error {
			e.Setenv("IDEMC_TARGET", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": exitcode,
			"dump":     dump,
			"sleep":    sleep,
			"sqlexec":  sqlexec,
			"testapi":  testAPI,
		},
	})
}

// exitcode N prog args... runs prog and asserts its exit code is exactly N
// (testscript's "! exec" only asserts "not zero"); stdout and stderr stay
// available to the next assertions.
func exitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// dump DB QUERY FILE runs a read-only query on a DuckDB file and writes the
// rows (tab-separated, in the query's order) to FILE, so scripts can compare
// table contents with cmp.
func dump(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: dump db.duckdb 'SELECT …' out.txt")
	}
	db, err := sql.Open("duckdb", ts.MkAbs(args[0])+"?access_mode=read_only")
	ts.Check(err)
	defer db.Close()
	rows, err := db.Query(args[1])
	ts.Check(err)
	defer rows.Close()
	text, err := rowsText(rows)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(text), 0o644))
}

// rowsText renders rows tab-separated under a header line.
func rowsText(rows *sql.Rows) (string, error) {
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(strings.Join(cols, "\t") + "\n")
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(sqlgen.Text(v))
		}
		b.WriteByte('\n')
	}
	return b.String(), rows.Err()
}

// sqlexec DB STATEMENT runs one statement on a DuckDB file, as a change
// made outside idemc (a dropped or truncated table).
func sqlexec(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sqlexec db.duckdb 'DROP TABLE …'")
	}
	db, err := sql.Open("duckdb", ts.MkAbs(args[0]))
	ts.Check(err)
	defer db.Close()
	_, err = db.Exec(args[1])
	ts.Check(err)
}

// sleep DURATION pauses the script (to let a background command start).
func sleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep 1s")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}
