package conformance

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/faultinject"
	"github.com/idemc/idemc/runner"
)

// hostileSecrets: a password in the DSN and in a target setting, both from
// an environment variable, never reach the output, errors, the trace,
// target/ or the audit table; neither when the connection works nor when
// it fails.
func hostileSecrets(t *testing.T, tgt Target) {
	var rb [8]byte
	_, _ = rand.Read(rb[:])
	secret := "SEKRET" + hex.EncodeToString(rb[:])
	t.Setenv("IDEMC_TEST_SECRET", secret)
	e := newEnv(t, tgt, base(map[string]string{
		"models/totals.sql": "/* idemc\nmaterialized = \"table\"\n[checks]\nmin_rows = 1\n*/\nSELECT user_id, sum(amount) AS total FROM {{ ref(\"daily\") }} GROUP BY user_id",
		// Fails its check: the failure paths write errors too.
		"models/failing.sql": "/* idemc\nmaterialized = \"table\"\n[checks]\nmin_rows = 100\n*/\nSELECT 1 AS n",
	}))
	settings := tgt.Settings(e.dir)
	good, bad := secretDSNs(t, e, tgt, settings, hex.EncodeToString(rb[:3]), secret)
	var out bytes.Buffer
	check := func(what, text string) {
		t.Helper()
		if strings.Contains(text, secret) {
			t.Errorf("the secret appears in %s:\n%s", what, text)
		}
	}

	writeSecretsProject(e, tgt, settings, good)
	if tgt.Engine == "postgres" {
		p, err := project.Load(e.dir)
		if err != nil {
			t.Fatal(err)
		}
		eng, _, err := runner.Connect(context.Background(), p, "")
		if err != nil {
			check("the connection error", err.Error())
			t.Skipf("PostgreSQL does not accept the password-carrying DSN (not trust authentication): %v", err)
		}
		eng.Close()
	}
	stderr := captureStderr(t, func() { buildWithSecret(t, e, tgt, check, &out) })
	check("the run output", out.String())
	check("stderr (the statement trace)", stderr)
	if !strings.Contains(stderr, "trace") {
		t.Errorf("the statement trace printed nothing: %q", stderr)
	}
	// The audit table and the state table, every column.
	for _, table := range []string{"idemc_audit", "idemc_state", "idemc_latest"} {
		for _, r := range e.query("SELECT * FROM " + e.rel(table)) {
			check(table, strings.Join(r, " | "))
		}
	}

	// A connection that fails: the error names the target, not the secret.
	if bad != "" {
		writeSecretsProject(e, tgt, settings, bad)
		p, err := project.Load(e.dir)
		if err != nil {
			t.Fatal(err)
		}
		at, _ := time.Parse(time.RFC3339, asOf)
		_, err = runner.Build(context.Background(), p, runner.Options{AfterStep: faultinject.FromEnv(), Compile: compiler.Options{AsOf: at, Models: true, Seeds: true}, Out: &out})
		if err == nil {
			t.Fatal("a build against an unreachable target succeeded")
		}
		check("the connection error", err.Error())
		check("the run output", out.String())
	}
	checkTargetFiles(t, e, check)
}

// secretDSNs are the DSNs of the engine with the password read from
// IDEMC_TEST_SECRET: one that connects (on MySQL, as a user made for the
// test with that password) and one that does not; "" where the engine's
// settings carry no DSN.
func secretDSNs(t *testing.T, e *env, tgt Target, settings map[string]string, suffix, secret string) (good, bad string) {
	switch tgt.Engine {
	case "postgres":
		u, err := url.Parse(settings["dsn"])
		if err != nil || u.Scheme == "" {
			t.Skipf("the PostgreSQL DSN is not a URL: %v", err)
		}
		user := u.User.Username()
		// Under trust authentication any password is accepted; otherwise
		// the configured one is needed and this part is skipped.
		u.User = url.UserPassword(user, "${IDEMC_TEST_SECRET}")
		good = strings.Replace(u.String(), "%7BIDEMC_TEST_SECRET%7D", "{IDEMC_TEST_SECRET}", 1)
		u.Path = "/idemc_no_such_db"
		bad = strings.Replace(u.String(), "%7BIDEMC_TEST_SECRET%7D", "{IDEMC_TEST_SECRET}", 1)
	case "mysql":
		user := "idemc_h" + suffix
		dsn := settings["dsn"]
		grants := []string{"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + secret + "'",
			"GRANT ALL ON " + e.d.Quote(e.schema) + ".* TO '" + user + "'@'%'",
			"GRANT ALL ON " + e.d.Quote(e.schema+"_raw") + ".* TO '" + user + "'@'%'"}
		// The DSN's own database, which the connection opens.
		db := dsn[strings.LastIndex(dsn, "/")+1:]
		if i := strings.IndexByte(db, '?'); i >= 0 {
			db = db[:i]
		}
		if db != "" {
			grants = append(grants, "GRANT SELECT ON "+e.d.Quote(db)+".* TO '"+user+"'@'%'")
		}
		e.exec(grants...)
		t.Cleanup(func() { e.exec("DROP USER IF EXISTS '" + user + "'@'%'") })
		at := strings.LastIndex(dsn[:strings.LastIndex(dsn, "/")], "@")
		good = user + ":${IDEMC_TEST_SECRET}" + dsn[at:]
		bad = "root:${IDEMC_TEST_SECRET}@tcp(127.0.0.1:1)/test?timeout=2s"
	}
	return good, bad
}

// writeSecretsProject writes the project file with the target's settings,
// dsn for its DSN and the password from IDEMC_TEST_SECRET where the
// engine reads one.
func writeSecretsProject(e *env, tgt Target, settings map[string]string, dsn string) {
	var b strings.Builder
	fmt.Fprintf(&b, "name = \"secrets\"\ndefault_target = \"t\"\n[targets.t]\nengine = %q\nschema = %q\n", tgt.Engine, e.schema)
	if ad, _ := adapters.Lookup(tgt.Engine); slices.Contains(ad.Settings, "password") {
		b.WriteString("password = \"${IDEMC_TEST_SECRET}\"\n") // the engine reads it: the connection uses it
	}
	for k, v := range settings {
		if k == "dsn" {
			v = dsn
		}
		fmt.Fprintf(&b, "%s = %s\n", k, tomlString(v))
	}
	fmt.Fprintf(&b, "[sources.raw]\nschema = %q\ntables = [\"events\", \"users\"]\n[seeds]\nschema = %q\n", e.schema+"_raw", e.schema+"_raw")
	e.write(map[string]string{"project.toml": b.String()})
}

// buildWithSecret builds (one unit fails its check), reads the status and
// the tests, compiles and writes target/compiled, with the statement trace
// on stderr, checking each answer for the secret.
func buildWithSecret(t *testing.T, e *env, tgt Target, check func(what, text string), out *bytes.Buffer) {
	p, err := project.Load(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	at, _ := time.Parse(time.RFC3339, asOf)
	opts := compiler.Options{AsOf: at, Models: true, Seeds: true}
	res, err := runner.Build(context.Background(), p, runner.Options{AfterStep: faultinject.FromEnv(), Compile: opts, Threads: 2, Tests: true, Out: out,
		Trace: os.Stderr}) // what IDEMC_TRACE=1 gives the command line
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	t.Logf("built on %s with the password from IDEMC_TEST_SECRET: %d units succeeded, %d failed", tgt.Engine, res.Succeeded, res.Failed)
	if res.Failed != 1 {
		t.Errorf("want exactly the failing unit to fail, got %d failed", res.Failed)
	}
	for _, u := range res.Units {
		check("unit "+u.ID+"'s error", u.Error)
	}
	st, err := runner.Status(context.Background(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	check("status", fmt.Sprint(st))
	tr, err := runner.Test(context.Background(), p, opts)
	if err == nil {
		check("test results", fmt.Sprint(tr))
	} else {
		check("the test error", err.Error())
	}
	pl, err := compiler.Compile(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	ad, _ := adapters.Lookup(tgt.Engine)
	if err := runner.WriteCompiled(e.dir, pl, ad.Dialect); err != nil {
		t.Fatal(err)
	}
	check("the printed pl", pl.Format(true))
}

// checkTargetFiles checks every file under target/ for the secret.
func checkTargetFiles(t *testing.T, e *env, check func(what, text string)) {
	n := 0
	err := filepath.WalkDir(filepath.Join(e.dir, "target"), func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || strings.HasSuffix(path, ".duckdb") || strings.HasSuffix(path, ".wal") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		check(path, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"run_results.json", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(e.dir, "target", want)); err != nil {
			t.Errorf("target/%s was not written: %v", want, err)
		}
	}
	if n < 4 {
		t.Errorf("only %d files under target/ to search", n)
	}
}

// captureStderr runs f with os.Stderr redirected and returns what was
// written to it.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() {
		os.Stderr = saved
	}()
	func() {
		defer func() {
			os.Stderr = saved
			w.Close()
		}()
		f()
	}()
	return <-done
}
