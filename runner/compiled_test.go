package runner

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/testtree"
	"github.com/idemc/idemc/plan"
)

// sentLog keeps every statement each session sent, in order.
type sentLog struct {
	sync.Mutex
	sessions [][]string
}

// sentLogs are the "recording" engine's, by the path of its database file.
var sentLogs sync.Map

func init() {
	duck, ok := adapters.Lookup("duckdb")
	if !ok {
		panic("duckdb is not registered")
	}
	adapters.Register(&adapters.Adapter{
		Name: "recording", Dialect: duck.Dialect, Capabilities: duck.Capabilities, Settings: duck.Settings,
		Client: adapters.Client{Open: func(ctx context.Context, settings map[string]string) (adapters.Engine, error) {
			e, err := duck.Open(ctx, settings)
			if err != nil {
				return nil, err
			}
			rec, _ := sentLogs.LoadOrStore(settings["path"], &sentLog{})
			return &recordingEngine{Engine: e, rec: rec.(*sentLog)}, nil
		}},
	})
}

type recordingEngine struct {
	adapters.Engine
	rec *sentLog
}

func (e *recordingEngine) Session(ctx context.Context) (adapters.Session, error) {
	s, err := e.Engine.Session(ctx)
	if err != nil {
		return nil, err
	}
	e.rec.Lock()
	defer e.rec.Unlock()
	e.rec.sessions = append(e.rec.sessions, nil)
	return &recordingSession{Session: s, rec: e.rec, i: len(e.rec.sessions) - 1}, nil
}

type recordingSession struct {
	adapters.Session
	rec *sentLog
	i   int
}

func (s *recordingSession) add(q string) {
	s.rec.Lock()
	s.rec.sessions[s.i] = append(s.rec.sessions[s.i], q)
	s.rec.Unlock()
}

func (s *recordingSession) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	s.add(st.SQL)
	return s.Session.Exec(ctx, st)
}

func (s *recordingSession) Query(ctx context.Context, q string, limit int) ([]string, [][]string, error) {
	s.add(q)
	return s.Session.Query(ctx, q, limit)
}

// compiledSteps reads a unit's file under target/compiled as the
// statements it says run, each a pattern (a slot matches any value) and
// whether it may be absent (the row count, sent only when the write
// reported no rows).
func compiledSteps(t *testing.T, path string) []expected {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	header := regexp.MustCompile(`^-- \d+\. [a-z_]+(: .*)?$`)
	var out []expected
	var body []string
	notSent := false // a step the runner did not send: its SQL is commented out
	flush := func() {
		if body != nil && !notSent {
			out = append(out, expect(strings.TrimSuffix(strings.Join(body, "\n"), ";"), false))
		}
		body, notSent = nil, false
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		switch {
		case strings.HasPrefix(line, "-- unit "):
		case header.MatchString(line):
			flush()
		case strings.HasPrefix(line, "--    not sent: "):
			notSent = true
		case strings.HasPrefix(line, "--    "): // a step's lock, job or deferral
		case strings.HasPrefix(line, "-- count: "):
			out = append(out, expect(strings.TrimPrefix(line, "-- count: "), true))
		default:
			body = append(body, line)
		}
	}
	flush()
	return out
}

type expected struct {
	re       *regexp.Regexp
	optional bool // the row count
	text     string
}

func expect(sql string, count bool) expected {
	q := regexp.QuoteMeta(sql)
	if count {
		// Printed on one line: match the statement's own line breaks.
		q = strings.ReplaceAll(q, " ", `\s+`)
	}
	q = strings.NewReplacer(regexp.QuoteMeta(plan.Token(plan.SlotRows)), `\d+`,
		regexp.QuoteMeta(plan.Token(plan.SlotEndedAt)), `TIMESTAMP '[0-9: .-]+'`,
		regexp.QuoteMeta(plan.Token(plan.SlotChecks)), `(NULL|'[^;]*')`).Replace(q)
	return expected{re: regexp.MustCompile(`^(?s)` + q + `$`), optional: count, text: sql}
}

// matches reports whether a session sent the expected statements: before
// them the unit only read (the resolve phase); after them, in a failed
// unit, only its failure path (rollback, cleanup, the failed audit row).
func matches(sent []string, want []expected, failed bool) bool {
	for end := len(sent); end > 0; end-- {
		if !failed && end < len(sent) {
			return false
		}
		if endsWith(sent[:end], want) && (!failed || failurePath(sent[end:])) {
			return true
		}
	}
	return false
}

func endsWith(sent []string, want []expected) bool {
	j := len(sent) - 1
	for i := len(want) - 1; i >= 0; i-- {
		if j >= 0 && want[i].re.MatchString(sent[j]) {
			j--
			continue
		}
		if !want[i].optional {
			return false
		}
	}
	for ; j >= 0; j-- {
		q := strings.ToUpper(strings.TrimSpace(sent[j]))
		// Reads, and the run's claim of running rows (claims.go), which
		// a claimed unit's file leaves out.
		// (The claim's rows, in the audit table and idemc_latest, commit
		// in a transaction of their own.)
		claim := strings.Contains(q, "IDEMC_AUDIT") || strings.Contains(q, "IDEMC_LATEST")
		claimTx := q == "BEGIN TRANSACTION" || q == "COMMIT"
		if !strings.HasPrefix(q, "SELECT") && !claimTx && !(strings.HasPrefix(q, "INSERT INTO") && claim && strings.Contains(q, "'RUNNING'")) {
			return false
		}
	}
	return true
}

func failurePath(rest []string) bool {
	for _, q := range rest {
		u := strings.ToUpper(q)
		if u != "ROLLBACK" && !strings.HasPrefix(u, "DROP ") && !strings.Contains(u, "IDEMC_AUDIT") && !strings.Contains(u, "IDEMC_LATEST") {
			return false
		}
	}
	return len(rest) > 0
}

// TestCompiledIsWhatRan: after a build, every unit's file under
// target/compiled holds exactly the statements its session sent, in order,
// but for the slots the runner fills (rows, end, checks) and the reads that
// resolved the recipe — on a first build, after a model gains a column
// (append_new_columns: the schema step is in the file) and for a unit that
// failed its check.
func TestCompiledIsWhatRan(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"project.toml": "name = \"ran\"\ndefault_target = \"local\"\n[targets.local]\nengine = \"recording\"\npath = \"target/w.duckdb\"\nschema = \"main\"\n",
		"models/src.sql": "/* idemc\nmaterialized = \"table\"\n*/\n" +
			"SELECT * FROM (VALUES (DATE '2026-07-01', 1, 'a'), (DATE '2026-07-02', 2, 'b'), (DATE '2026-07-02', 3, 'c')) AS t(d, id, name)",
		"models/names.sql": "/* idemc\nmaterialized = \"view\"\n*/\nSELECT id, name FROM {{ ref(\"src\") }}",
		"models/daily.sql": "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\non_schema_change = \"append_new_columns\"\n" +
			"[checks]\nunique = [\"id\"]\nnot_null = [\"id\"]\n*/\nSELECT d, id, name FROM {{ ref(\"src\") }} WHERE d >= {{ start }} AND d < {{ end }}",
		"models/latest.sql": "/* idemc\nmaterialized = \"incremental\"\nstrategy = \"merge\"\nunique_key = \"id\"\n[checks]\nnot_null = [\"name\"]\n*/\n" +
			"SELECT id, name FROM {{ ref(\"src\") }}",
		// Row lineage: the run id is a literal of the file, as it ran.
		"models/stamped.sql": "/* idemc\nmaterialized = \"incremental\"\nunique_key = \"id\"\nlineage_columns = true\n*/\nSELECT id, name FROM {{ ref(\"src\") }}",
	})
	p := loadProject(t, dir)
	files := buildAndCompare(t, dir, p, 6, true)
	// daily's second partition does not send the prepare steps its first
	// sent: its file says so, and the comparison above skips them.
	if !regexp.MustCompile(`(?m)^--    not sent: an earlier unit of this run sent it for the same destination\n-- CREATE TABLE IF NOT EXISTS "main"\."daily"`).MatchString(files) {
		t.Errorf("no unit's file shows daily's CREATE TABLE IF NOT EXISTS as not sent:\n%s", files)
	}
	if !regexp.MustCompile(`CAST\('\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}' AS VARCHAR\) AS "_idemc_run_id"`).MatchString(files) {
		t.Errorf("no unit's file writes the run id into _idemc_run_id:\n%s", files)
	}

	// daily gains a column: its first unit adds it in its transaction.
	daily := filepath.Join(dir, "models", "daily.sql")
	b, _ := os.ReadFile(daily)
	if err := os.WriteFile(daily, []byte(strings.Replace(string(b), "SELECT d, id, name", "SELECT d, id, name, upper(name) AS loud", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	files = buildAndCompare(t, dir, loadProject(t, dir), 2, true)
	if !regexp.MustCompile(`-- \d\. schema: the model's new column loud`).MatchString(files) {
		t.Errorf("no unit's file adds the new column:\n%s", files)
	}

	// latest fails its check: its file is still what ran, up to the failure.
	latest := filepath.Join(dir, "models", "latest.sql")
	if err := os.WriteFile(latest, []byte("/* idemc\nmaterialized = \"incremental\"\nstrategy = \"merge\"\nunique_key = \"id\"\n[checks]\nnot_null = [\"name\"]\n*/\n"+
		"SELECT id, CASE WHEN id = 2 THEN NULL ELSE name END AS name FROM {{ ref(\"src\") }}"), 0o644); err != nil {
		t.Fatal(err)
	}
	buildAndCompare(t, dir, loadProject(t, dir), 1, false)
}

func loadProject(t *testing.T, dir string) *project.Project {
	t.Helper()
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// buildAndCompare builds the project and compares each unit it ran with
// its file; it returns the files' text.
func buildAndCompare(t *testing.T, dir string, p *project.Project, units int, ok bool) string {
	t.Helper()
	path := filepath.Join(dir, "target", "w.duckdb")
	sentLogs.Store(path, &sentLog{})
	opts := compiler.Options{Models: true, AsOf: time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)}
	res, err := Build(context.Background(), p, Options{Compile: opts, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() != ok || len(res.Units) != units {
		t.Fatalf("build: ok %v with %d units, want ok %v with %d: %+v", res.OK(), len(res.Units), ok, units, res.Units)
	}
	r, _ := sentLogs.Load(path)
	sessions := r.(*sentLog).sessions
	var all strings.Builder
	for _, u := range res.Units {
		file := filepath.Join(dir, "target", "compiled", u.Model, cmpOr(u.Partition, u.Model)+".sql")
		want := compiledSteps(t, file)
		if u.Status == StatusFailed {
			want = upToFailure(t, want, u.Error)
		}
		found := false
		for _, sent := range sessions {
			if len(sent) > 0 && matches(sent, want, u.Status == StatusFailed) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("unit %s: no session sent what %s holds:\n%s", u.ID, file, describe(want, sessions))
		}
		b, _ := os.ReadFile(file)
		all.Write(b)
	}
	return all.String()
}

// upToFailure keeps a failed unit's statements up to the check that
// failed; the rollback, cleanup and failed audit row follow it.
func upToFailure(t *testing.T, want []expected, msg string) []expected {
	for i, e := range want {
		if strings.Contains(msg, "not_null(name)") && strings.Contains(e.text, `"name" IS NULL`) {
			return want[:i+1]
		}
	}
	t.Fatalf("no step of the file is the failed check (%s)", msg)
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func describe(want []expected, sessions [][]string) string {
	var b strings.Builder
	b.WriteString("file:\n")
	for _, e := range want {
		b.WriteString("  " + strings.ReplaceAll(e.text, "\n", " ") + "\n")
	}
	for i, s := range sessions {
		b.WriteString("session " + string(rune('0'+i%10)) + ":\n")
		for _, q := range s {
			b.WriteString("  " + strings.ReplaceAll(q, "\n", " ") + "\n")
		}
	}
	return b.String()
}
