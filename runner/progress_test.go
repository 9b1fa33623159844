package runner

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/testtree"
	"github.com/idemc/idemc/plan"
)

func TestProgressLine(t *testing.T) {
	s := time.Second
	tests := []struct {
		name        string
		done, total int
		running     []runningUnit
		rows        int64
		elapsed     time.Duration
		width       int
		want        string
	}{
		{"nothing running yet", 0, 3, nil, 0, 0, 120, "[0/3] starting… · 0 rows · 0.0s"},
		{"longest first", 1, 3, []runningUnit{{"b", 1 * s}, {"a", 4 * s}}, 1234, 5 * s, 120,
			"[1/3] running a 4.0s, b 1.0s · 1,234 rows · 5.0s"},
		{"a backfill has a rate and the time left", 30, 365, []runningUnit{{"events_daily/2026-07-31", 2 * s}}, 1234567, 15 * s, 120,
			"[30/365] running events_daily/2026-07-31 2.0s · 1,234,567 rows · 15s · 2.0 units/s, about 2m47s left"},
		{"more than three running", 0, 4, []runningUnit{{"a", s}, {"b", s}, {"c", s}, {"d", s}}, 0, s, 120,
			"[0/4] running a 1.0s, b 1.0s, c 1.0s, +1 more · 0 rows · 1.0s"},
		{"cut to the width", 0, 2, []runningUnit{{strings.Repeat("x", 50), s}}, 0, s, 20, "[0/2] running xxxxx…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := progressLine(tt.done, tt.total, tt.running, tt.rows, tt.elapsed, tt.width); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// syncBuffer is a buffer the progress ticker and the runner write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestProgressShowsRunningUnits: on a terminal the live line names the
// unit that is running and the rows the finished ones wrote, and is
// cleared at the end.
func TestProgressShowsRunningUnits(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"project.toml":    "name = \"t\"\ndefault_target = \"local\"\n[targets.local]\nengine = \"duckdb\"\npath = \"target/w.duckdb\"\nschema = \"main\"\n",
		"models/a.sql":    "/* idemc\nmaterialized = \"table\"\n*/\nSELECT i FROM range(5) t(i)\n",
		"models/slow.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT count(*) AS n FROM {{ ref(\"a\") }}\n",
	})
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out, prog syncBuffer
	// slow's steps wait long enough for the ticker to draw it.
	hook := func(_ context.Context, unit string, _ plan.Purpose) error {
		if unit == "slow" {
			time.Sleep(3 * progressTick)
		}
		return nil
	}
	res, err := Build(context.Background(), p, Options{Compile: compiler.Options{Models: true, AsOf: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)},
		Threads: 1, Out: &out, Progress: &prog, AfterStep: hook})
	if err != nil || !res.OK() {
		t.Fatalf("build: %v %+v", err, res)
	}
	got := prog.b.String()
	if !strings.Contains(got, "[1/2] running slow ") || !strings.Contains(got, " · 5 rows · ") {
		t.Fatalf("progress line never showed slow running after a's 5 rows:\n%q", got)
	}
	if !strings.HasSuffix(got, "\r\033[K") {
		t.Fatalf("progress line not cleared at the end: %q", got[max(0, len(got)-80):])
	}
}
