package runner

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/idemc/idemc/compiler/project"
)

func TestClassifyFatal(t *testing.T) {
	cases := []struct {
		msg  string
		want fatalKind
	}{
		{`step 5 (insert): IO Error: Could not write file "w.duckdb.wal": No space left on device`, outOfSpace},
		{`step 4 (stage): ERROR: could not extend file "base/16384/16385": No space left on device (SQLSTATE 53100)`, outOfSpace},
		{`step 4 (stage): Error 3 (HY000): Error writing file '/tmp/MYx' (Errcode: 28 "No space left on device")`, outOfSpace},
		{`step 4 (stage): FATAL Error: Failed: database has been invalidated because of a previous fatal error`, ioFailure},
		{`step 6 (commit): IO Error: Could not fsync file: Input/output error`, ioFailure},
		{`step 5 (insert): driver: bad connection`, connLost},
		{`step 2 (audit_start): invalid connection`, connLost},
		{`step 3 (stage): FATAL: terminating connection due to administrator command (SQLSTATE 57P01)`, connLost},
		{`dial tcp 127.0.0.1:5432: connect: connection refused`, connLost},
		{`step 4 (stage): Binder Error: Referenced column "x" not found`, notFatal},
		{`step 4 (stage): IO Error: No files found that match the pattern "data/*.csv"`, notFatal},
		// A URL the model reads is not the target's connection.
		{`step 4 (stage): IO Error: Could not establish connection error for HTTP HEAD to 'https://example.com/x.csv': Connection refused`, notFatal},
		{`step 4 (stage): IO Error: Unexpected EOF reading "data/x.parquet"`, notFatal},
		{`step 3 (stage): read tcp 10.0.0.2:51514->10.0.0.9:5432: read: connection reset by peer`, connLost},
		// A check's sample rows are data: never a cause.
		{`check accepted_values(msg) failed: (msg=No space left on device, n=1)`, notFatal},
	}
	for _, c := range cases {
		if got := classifyFatal(c.msg); got != c.want {
			t.Errorf("classifyFatal(%q) = %d, want %d", c.msg, got, c.want)
		}
	}
}

// TestRunFatal: an error of the run itself (not of a unit) caused by a lost
// connection names the target and its host, never the password.
func TestRunFatal(t *testing.T) {
	p := &project.Project{DefaultTarget: "pg", Targets: map[string]*project.Target{
		"pg": {Engine: "postgres", Settings: map[string]string{"dsn": "postgres://idemc:s3cret@db.example:5432/w"}},
	}}
	r := &run{p: p}
	err := r.runFatal(fmt.Errorf("runner: reading the audit table: %w", driver.ErrBadConn))
	want := `runner: reading the audit table: driver: bad connection; the connection to target "pg" (postgres, db.example:5432) was lost; once it is reachable, run the same command again`
	if err == nil || err.Error() != want || !errors.Is(err, driver.ErrBadConn) {
		t.Errorf("runFatal = %v\nwant %s", err, want)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the password leaked: %v", err)
	}
	plain := errors.New("runner: reading the audit table: permission denied")
	if got := r.runFatal(plain); got != plain {
		t.Errorf("runFatal(%v) = %v, want it unchanged", plain, got)
	}
}
