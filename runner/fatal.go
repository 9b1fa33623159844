package runner

import (
	"fmt"
	"os"
	"strings"

	"github.com/idemc/idemc/adapters"
)

// An engine error that no later unit can escape: the disk is full, the
// storage fails, the connection is gone. After one, the walker starts no
// new unit (DuckDB tried every remaining unit against a database it had
// invalidated), the rest are not started, the root cause is explained once
// and the run exits 1; "idemc retry" finishes it.
type fatalKind int

const (
	notFatal fatalKind = iota
	outOfSpace
	ioFailure
	connLost
)

// fatalMarks are lower-case fragments of the engines' and drivers' messages.
var fatalMarks = []struct {
	kind  fatalKind
	marks []string
}{
	{outOfSpace, []string{"no space left on device", "disk full", "disk is full", "out of disk space",
		"not enough space on the disk", "sqlstate 53100", "errcode: 28", "errno: 28", "could not extend file"}},
	{ioFailure, []string{"input/output error", "read-only file system", "database has been invalidated",
		"could not fsync", "could not read block"}},
	{connLost, []string{"driver: bad connection", "invalid connection", "conn closed", "server closed the connection unexpectedly",
		"terminating connection", "use of closed network connection", "lost connection to", "server has gone away"}},
}

// socketMarks are connection failures that an engine also reports for a
// URL or file a model reads (DuckDB's httpfs and readers, as "IO Error"):
// they mean the target's connection only when neither is involved.
var socketMarks = []string{"broken pipe", "connection reset by peer", "unexpected eof", "connection refused"}

// classifyFatal tells a failed unit's error apart. A failed check is never
// fatal: its sample rows are data and may say anything.
func classifyFatal(msg string) fatalKind {
	if strings.HasPrefix(msg, "check ") {
		return notFatal
	}
	low := strings.ToLower(msg)
	for _, k := range fatalMarks {
		for _, m := range k.marks {
			if strings.Contains(low, m) {
				return k.kind
			}
		}
	}
	if !strings.Contains(low, "http") && !strings.Contains(low, "io error") {
		for _, m := range socketMarks {
			if strings.Contains(low, m) {
				return connLost
			}
		}
	}
	return notFatal
}

// fatalStop is the first fatal error of a run.
type fatalStop struct {
	unit string
	kind fatalKind
}

func (f *fatalStop) reason() string {
	switch f.kind {
	case outOfSpace:
		return "ran out of disk space"
	case ioFailure:
		return "hit an I/O error"
	}
	return "lost its connection"
}

// explainFatal adds the cause and the remedy to a fatal unit error.
func (r *run) explainFatal(ur *UnitResult, kind fatalKind) string {
	where := r.targetWhere()
	switch kind {
	case outOfSpace:
		return fmt.Sprintf("%s; the engine is out of disk space: free space on the target %s (this unit was rolled back), then run \"idemc retry\" to finish the run", ur.Error, where)
	case ioFailure:
		return fmt.Sprintf("%s; the engine hit an I/O error it does not recover from: check the storage of target %s, then run \"idemc retry\" to finish the run", ur.Error, where)
	}
	return fmt.Sprintf("%s; the connection to target %s was lost while running model %s; once the target is reachable, run \"idemc retry\" to finish the run (it reruns what is not done)", ur.Error, where, ur.Model)
}

// targetWhere names the run's target, its engine and where it is, as the
// engine's client reads its settings (Adapter.Where: the DSN's host, never
// the user or password, or the database file).
func (r *run) targetWhere() string {
	name := r.o.Compile.Target
	if name == "" {
		name = r.p.DefaultTarget
	}
	t := r.p.Targets[name]
	if t == nil {
		return fmt.Sprintf("%q", name)
	}
	settings, _ := t.Resolve(os.LookupEnv)
	at := ""
	if ad, ok := adapters.Lookup(t.Engine); ok && ad.Where != nil {
		at = ad.Where(settings)
	}
	if at == "" {
		return fmt.Sprintf("%q (%s)", name, t.Engine)
	}
	return fmt.Sprintf("%q (%s, %s)", name, t.Engine, at)
}

// runFatal adds the cause and remedy to an error of the run itself (reading
// the audit table, recording the run) when the connection or the storage
// failed under it.
func (r *run) runFatal(err error) error {
	if err == nil {
		return err
	}
	switch classifyFatal(err.Error()) {
	case connLost:
		return fmt.Errorf("%w; the connection to target %s was lost; once it is reachable, run the same command again", err, r.targetWhere())
	case outOfSpace:
		return fmt.Errorf("%w; the engine is out of disk space: free space on target %s and run the same command again", err, r.targetWhere())
	case ioFailure:
		return fmt.Errorf("%w; the engine hit an I/O error: check the storage of target %s", err, r.targetWhere())
	}
	return err
}
