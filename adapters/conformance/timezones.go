package conformance

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TimeZoneOptions configure the time-zone matrix (TimeZones).
type TimeZoneOptions struct {
	// ServerZones are session default zones to try besides the server's
	// own ("" in the matrix): PostgreSQL's TimeZone through the DSN,
	// MariaDB's time_zone. None for DuckDB, which has no server.
	ServerZones []string
	// WithServerZone returns the target's settings with sessions
	// defaulting to zone.
	WithServerZone func(settings map[string]string, zone string) map[string]string
	// Trials is the number of matrix cells run; 0: IDEMC_TZ_TRIALS, else
	// every cell with IDEMC_SOAK=1, else tzCITrials.
	Trials int
	// Seed picks the cells; 0: IDEMC_FAULT_SEED, else the clock (logged).
	Seed int64
}

// tzCITrials is the matrix sample of a CI run (each trial is one build in
// a child process, about a second).
const tzCITrials = 32

// processZones are the TZ values of the child builds: whole, half and
// quarter hour offsets, and both DST rules.
var processZones = []string{"UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Pacific/Chatham"}

// dstChange is one daylight-saving change: its UTC day and the UTC instant
// the clocks move.
type dstChange struct {
	name    string
	day     time.Time
	instant time.Time
}

var dstChanges = []dstChange{
	{"us", time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC)},
	{"eu", time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)},
}

// tzColumns are the partition column types per engine, each as the SQL of
// base (UTC text) plus h hours, spelled so that the value is the same
// instant whatever the session's zone.
func tzColumns(engine string) map[string]func(base string) string {
	switch engine {
	case "duckdb":
		return map[string]func(string) string{
			"timestamptz": func(b string) string { return "TIMESTAMPTZ '" + b + "+00' + to_hours(h)" },
			"timestamp":   func(b string) string { return "TIMESTAMP '" + b + "' + to_hours(h)" },
		}
	case "postgres":
		return map[string]func(string) string{
			"timestamptz": func(b string) string { return "TIMESTAMPTZ '" + b + "+00' + h * INTERVAL '1 hour'" },
			"timestamp":   func(b string) string { return "TIMESTAMP '" + b + "' + h * INTERVAL '1 hour'" },
		}
	case "mysql":
		return map[string]func(string) string{
			"datetime": func(b string) string { return "TIMESTAMP '" + b + "' + INTERVAL h HOUR" },
		}
	}
	return nil
}

// tzTrial is one cell of the matrix.
type tzTrial struct {
	procTZ, serverZone string
	dst                dstChange
	column, gran       string
}

func (tr tzTrial) name() string {
	sz := tr.serverZone
	if sz == "" {
		sz = "server"
	}
	r := strings.NewReplacer("/", "_", ":", "", "'", "", "+", "p")
	return r.Replace(fmt.Sprintf("%s/%s/%s/%s/%s", tr.procTZ, sz, tr.dst.name, tr.column, tr.gran))
}

// key is the trial's cell without the zones: trials with one key must
// leave the same warehouse.
func (tr tzTrial) key() string { return tr.dst.name + "/" + tr.column + "/" + tr.gran }

// window is the model's start, the build's as-of time, and the partitions
// with their row counts: hour partitions from 6 hours before the change to
// 6 after, day partitions from the day before to the day after.
func (tr tzTrial) window() (start, asOf string, want map[string]int) {
	want = map[string]int{}
	if tr.gran == "hour" {
		from := tr.dst.instant.Add(-6 * time.Hour)
		for i := 0; i < 12; i++ {
			want[from.Add(time.Duration(i)*time.Hour).Format("2006-01-02T15")] = tzPerHour
		}
		return from.Format("2006-01-02T15"), from.Add(12 * time.Hour).Format(time.RFC3339), want
	}
	from := tr.dst.day.AddDate(0, 0, -1)
	for i := 0; i < 3; i++ {
		want[from.AddDate(0, 0, i).Format("2006-01-02")] = 24 * tzPerHour
	}
	return from.Format("2006-01-02"), from.AddDate(0, 0, 3).Format(time.RFC3339), want
}

// tzPerHour rows per source hour; the source spans the three UTC days
// around the change.
const tzPerHour = 3

func (tr tzTrial) files(engine string) map[string]string {
	var csv strings.Builder
	csv.WriteString("h,k\n")
	for h := 0; h < 72; h++ {
		for k := 0; k < tzPerHour; k++ {
			fmt.Fprintf(&csv, "%d,%d\n", h, k)
		}
	}
	base := tr.dst.day.AddDate(0, 0, -1).Format("2006-01-02 15:04:05")
	start, _, _ := tr.window()
	return map[string]string{
		"seeds/events.csv": csv.String(),
		"models/src.sql":   fmt.Sprintf("SELECT %s AS ts, h, k FROM {{ source(\"raw\", \"events\") }}\n", tzColumns(engine)[tr.column](base)),
		"models/part.sql": fmt.Sprintf("/* idemc\nmaterialized = \"incremental\"\npartition_by = \"ts\"\ngranularity = %q\nstart = %q\n*/\n"+
			"SELECT ts, h, k FROM {{ ref(\"src\") }} WHERE ts >= {{ start }} AND ts < {{ end }}\n", tr.gran, start),
	}
}

// tzSnap is what a trial leaves: the model's rows and its audit rows.
type tzSnap struct{ rows, audit string }

type tzSuite struct {
	tgt  Target
	o    TimeZoneOptions
	mu   sync.Mutex
	refs map[string]*tzSnap
	// outcomes counts trials by outcome ("same", "differs", "failed").
	outcomes map[string]int
}

// TimeZones runs the time-zone matrix: process TZ × session default zone
// × DST change (US, EU) × partition column type × hour and day partitions.
// Each trial builds in a child process with that TZ, then compares the
// model's rows and audit rows with a clean build under TZ=UTC and the
// server's own zone, and checks that every planned partition succeeded
// with the source's row count.
func TimeZones(t *testing.T, tgt Target, o TimeZoneOptions) {
	started := time.Now()
	s := &tzSuite{tgt: tgt, o: o, refs: map[string]*tzSnap{}, outcomes: map[string]int{}}
	trials := s.pick(t, s.matrix())
	for _, tr := range trials {
		t.Run(tr.name(), func(t *testing.T) { s.trial(t, tr) })
	}
	var parts []string
	for k, n := range s.outcomes {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	t.Logf("SUMMARY %s time zones: %d trials of %d cells (%d process zones × %d session zones × %d DST changes × %d column types × 2 granularities) in %v, seed %d: %s",
		tgt.Engine, len(trials), len(s.matrix()), len(processZones), len(o.ServerZones)+1, len(dstChanges), len(tzColumns(tgt.Engine)),
		time.Since(started).Round(100*time.Millisecond), s.o.Seed, strings.Join(parts, ", "))
}

func (s *tzSuite) matrix() []tzTrial {
	cols := make([]string, 0, 2)
	for c := range tzColumns(s.tgt.Engine) {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	var out []tzTrial
	for _, p := range processZones {
		for _, z := range append([]string{""}, s.o.ServerZones...) {
			for _, d := range dstChanges {
				for _, c := range cols {
					for _, g := range []string{"hour", "day"} {
						out = append(out, tzTrial{procTZ: p, serverZone: z, dst: d, column: c, gran: g})
					}
				}
			}
		}
	}
	return out
}

// pick samples the matrix (every cell under IDEMC_SOAK=1).
func (s *tzSuite) pick(t *testing.T, all []tzTrial) []tzTrial {
	n := s.o.Trials
	if n <= 0 {
		if v := os.Getenv("IDEMC_TZ_TRIALS"); v != "" {
			var err error
			if n, err = strconv.Atoi(v); err != nil || n <= 0 {
				t.Fatalf("IDEMC_TZ_TRIALS=%q: want a positive number", v)
			}
		} else if os.Getenv("IDEMC_SOAK") == "1" {
			n = len(all)
		} else {
			n = tzCITrials
		}
	}
	if s.o.Seed == 0 {
		if v := os.Getenv("IDEMC_FAULT_SEED"); v != "" {
			seed, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("IDEMC_FAULT_SEED=%q: want a number", v)
			}
			s.o.Seed = seed
		} else {
			s.o.Seed = time.Now().UnixNano() % 1_000_000_000
		}
	}
	rand.New(rand.NewSource(s.o.Seed)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	if n > len(all) {
		n = len(all)
	}
	return all[:n]
}

func (s *tzSuite) trial(t *testing.T, tr tzTrial) {
	ref := s.reference(t, tr)
	got, err := s.build(t, tr)
	outcome := "same"
	switch {
	case err != nil:
		outcome = "failed"
		t.Errorf("TZ=%s session zone %q: %v", tr.procTZ, tr.serverZone, err)
	case ref != nil && *got != *ref:
		outcome = "differs"
		t.Errorf("TZ=%s session zone %q leaves another warehouse than a UTC build:\naudit got:\n%s\naudit UTC:\n%s\nrows differ: %v",
			tr.procTZ, tr.serverZone, got.audit, ref.audit, got.rows != ref.rows)
	}
	s.mu.Lock()
	s.outcomes[outcome]++
	s.mu.Unlock()
}

// reference is the clean build of the trial's key under TZ=UTC and the
// server's own zone, built once.
func (s *tzSuite) reference(t *testing.T, tr tzTrial) *tzSnap {
	s.mu.Lock()
	ref, ok := s.refs[tr.key()]
	s.mu.Unlock()
	if ok {
		return ref
	}
	clean := tr
	clean.procTZ, clean.serverZone = "UTC", ""
	ref, err := s.build(t, clean)
	if err != nil {
		t.Errorf("the clean UTC build: %v", err)
		return nil
	}
	s.mu.Lock()
	s.refs[tr.key()] = ref
	s.mu.Unlock()
	return ref
}

// build runs the trial's build in a child process with its TZ and session
// zone, checks the audit rows against the source, and snapshots the model.
func (s *tzSuite) build(t *testing.T, tr tzTrial) (*tzSnap, error) {
	tgt := s.tgt
	if tr.serverZone != "" {
		settings := tgt.Settings
		tgt.Settings = func(dir string) map[string]string { return s.o.WithServerZone(settings(dir), tr.serverZone) }
	}
	e := newEnv(t, tgt, tr.files(tgt.Engine))
	_, asOf, want := tr.window()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+e.dir+"|"+asOf+"|", "TZ="+tr.procTZ)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build: %v\n%s", err, out)
	}
	var audit []string
	for _, r := range e.query(fmt.Sprintf("SELECT partition_key, status, row_count FROM %s WHERE job_name = 'part' ORDER BY partition_key", e.rel("idemc_audit"))) {
		audit = append(audit, strings.Join(r, " "))
		if r[1] != "succeeded" || r[2] != strconv.Itoa(want[r[0]]) {
			t.Errorf("audit row %v: want status succeeded and the source's %d rows", r, want[r[0]])
		}
		delete(want, r[0])
	}
	if len(want) > 0 {
		t.Errorf("partitions without an audit row: %v", want)
	}
	return &tzSnap{rows: e.fingerprint("part"), audit: strings.Join(audit, "\n")}, nil
}
