package conformance

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
)

// Server-side session kills of the fault trials, on engines whose server
// lets one session end another (adapters.ServerSessions).

// serverSessions opens the control connection of a server engine that can
// list and kill sessions; ok is false for the others (DuckDB).
func (s *faultSuite) serverSessions(t *testing.T) (adapters.Engine, bool) {
	ad, _ := adapters.Lookup(s.tgt.Engine)
	if ad == nil || ad.Open == nil || ad.Capabilities.SingleWriter {
		return nil, false
	}
	eng, err := ad.Open(context.Background(), s.tgt.Settings(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := eng.(adapters.ServerSessions); !ok {
		eng.Close()
		return nil, false
	}
	t.Cleanup(func() { eng.Close() })
	return eng, true
}

// activeStatement reports a statement the child is executing right now on
// a server engine ("" when none or unknown), just before an external kill.
func (s *faultSuite) activeStatement(pid int, app, schema string) string {
	if s.ctl == nil {
		return ""
	}
	list, err := s.sessions(pid, app, schema)
	if err != nil {
		return ""
	}
	for _, x := range list {
		if x.Active && x.Query != "" {
			return x.Query
		}
	}
	return ""
}

// sessions lists the child's sessions on the server: by application_name
// (PostgreSQL), by the child's TCP ports read from /proc (MySQL/MariaDB),
// else by the trial's schema in the statement text.
func (s *faultSuite) sessions(pid int, app, schema string) ([]adapters.ServerSession, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := s.ctl.Session(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	return s.ctl.(adapters.ServerSessions).Sessions(ctx, sess, adapters.SessionMatch{App: app, Ports: childPorts(pid), Text: schema})
}

// killSessions ends the child's sessions (all, or only those inside a
// unit: executing a statement or in a transaction) and describes them.
func (s *faultSuite) killSessions(pid int, app, schema string, busyOnly bool) ([]string, error) {
	list, err := s.sessions(pid, app, schema)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := s.ctl.Session(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	var out []string
	for _, x := range list {
		if busyOnly && !x.Active && !x.InTx {
			continue
		}
		if err := s.ctl.(adapters.ServerSessions).KillSession(ctx, sess, x.ID); err != nil {
			return out, err
		}
		what := "idle"
		switch {
		case x.Active:
			what = "running " + x.Query
		case x.InTx:
			what = "idle in a transaction"
		}
		out = append(out, what)
	}
	return out, nil
}

// childPorts lists the local TCP ports of a process's sockets (Linux).
func childPorts(pid int) map[int]bool {
	inodes := map[string]bool{}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil
	}
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	ports := map[int]bool{}
	for _, f := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, f))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 10 || !inodes[fs[9]] {
				continue
			}
			if i := strings.LastIndexByte(fs[1], ':'); i >= 0 {
				if p, err := strconv.ParseInt(fs[1][i+1:], 16, 32); err == nil {
					ports[int(p)] = true
				}
			}
		}
	}
	return ports
}
