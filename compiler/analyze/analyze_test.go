package analyze

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// summary renders findings as "line:col RULE severity" for compact comparison.
func summary(fs []Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%d:%d %s %s", f.Line, f.Col, f.Rule, f.Severity))
	}
	return out
}

func TestRules(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want []string // summary of the findings, in order
		msgs []string // substrings expected in the messages, in finding order
	}{
		// L001
		{name: "L001 now", in: Input{SQL: "SELECT now() AS t FROM x"},
			want: []string{"1:8 L001 error"}, msgs: []string{"now() is nondeterministic; use {{ as_of }}"}},
		{name: "L001 in CTE and subquery", in: Input{SQL: "WITH c AS (SELECT rand() AS r FROM x)\nSELECT r, (SELECT max(current_timestamp) FROM y) AS m FROM c"},
			want: []string{"1:19 L001 error", "2:23 L001 error"}, msgs: []string{"rand()", "current_timestamp is"}},
		{name: "L001 in WHERE and JOIN", in: Input{SQL: "SELECT a FROM x JOIN y ON y.d = CURRENT_DATE\nWHERE ts < NOW() - INTERVAL 1 DAY"},
			want: []string{"1:33 L001 error", "2:12 L001 error"}, msgs: []string{"current_date is", "now()"}},
		{name: "L001 uuid and sequence", in: Input{SQL: "SELECT gen_random_uuid() AS id, nextval(seq) AS n, uuid() AS u FROM x"},
			want: []string{"1:8 L001 error", "1:33 L001 error", "1:52 L001 error"},
			msgs: []string{"gen_random_uuid() is nondeterministic", "nextval()", "uuid()"}},
		{name: "L001 unix_timestamp without args", in: Input{SQL: "SELECT unix_timestamp() AS a, unix_timestamp(ts) AS b FROM x"},
			want: []string{"1:8 L001 error"}},
		{name: "L001 allowed", in: Input{SQL: "SELECT now() AS t, rand() AS r FROM x", AllowNondeterministic: []string{"now"}},
			want: []string{"1:20 L001 error"}, msgs: []string{"rand()"}},
		{name: "L001 allowed all", in: Input{SQL: "SELECT now() AS t, RAND() AS r FROM x", AllowNondeterministic: []string{"now", "rand"}}},
		{name: "L001 negative", in: Input{SQL: "SELECT md5(a || 'now()') AS k, now AS col, \"rand\" FROM x -- now()\nWHERE d >= DATE '2026-07-01' /* rand() */"}},
		{name: "L001 schema-qualified", in: Input{SQL: "SELECT pg_catalog.now() AS t FROM x"},
			want: []string{"1:19 L001 error"}},

		// L002
		{name: "L002 unordered", in: Input{SQL: "SELECT row_number() OVER (PARTITION BY a) AS rn FROM x"},
			want: []string{"1:8 L002 error"}, msgs: []string{"row_number() without ORDER BY"}},
		{name: "L002 empty over and named window", in: Input{SQL: "SELECT rank() OVER () AS r,\n  dense_rank() OVER w AS d\nFROM x WINDOW w AS (PARTITION BY a)"},
			want: []string{"1:8 L002 error", "2:3 L002 error"}},
		{name: "L002 ordered", in: Input{SQL: "SELECT row_number() OVER (PARTITION BY a ORDER BY ts, id) AS rn, rank() OVER w AS r FROM x WINDOW w AS (ORDER BY ts)"}},
		{name: "L002 named window chain", in: Input{SQL: "SELECT row_number() OVER (w2) AS rn FROM x WINDOW w1 AS (ORDER BY ts), w2 AS (w1 ROWS UNBOUNDED PRECEDING)"}},
		{name: "L002 in subquery", in: Input{SQL: "SELECT a FROM (SELECT a, row_number() OVER () AS rn FROM x) d WHERE rn = 1"},
			want: []string{"1:26 L002 error"}},
		{name: "L002 aggregate window is fine", in: Input{SQL: "SELECT sum(a) OVER (PARTITION BY b) AS s FROM x"}},
		{name: "L002 key from ordered row_number", in: Input{SQL: "SELECT row_number() OVER (ORDER BY ts) AS event_key, a FROM x", UniqueKey: []string{"event_key"}},
			want: []string{"1:8 L002 error"}, msgs: []string{`unique_key column "event_key" is computed from row_number(): the key depends on row order`}},
		{name: "L002 key through CTE", in: Input{SQL: "WITH n AS (\n  SELECT dense_rank() OVER (ORDER BY ts) AS id, a FROM x\n)\nSELECT n.id AS Event_Key, a FROM n", UniqueKey: []string{"event_key"}},
			want: []string{"2:10 L002 error"}, msgs: []string{"depends on row order"}},
		{name: "L002 key through derived table and star", in: Input{SQL: "SELECT * FROM (SELECT row_number() OVER (ORDER BY ts) AS k, a FROM x) d", UniqueKey: []string{"k"}},
			want: []string{"1:23 L002 error"}},
		{name: "L002 key through CTE column list", in: Input{SQL: "WITH n(k, v) AS (SELECT row_number() OVER (ORDER BY ts), a FROM x) SELECT k, v FROM n", UniqueKey: []string{"k"}},
			want: []string{"1:25 L002 error"}},
		{name: "L002 unordered key gets both", in: Input{SQL: "SELECT row_number() OVER () AS k FROM x", UniqueKey: []string{"k"}},
			want: []string{"1:8 L002 error", "1:8 L002 error"}, msgs: []string{"without ORDER BY", "depends on row order"}},
		{name: "L002 numbered non-key column", in: Input{SQL: "WITH r AS (SELECT *, row_number() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM x)\nSELECT id, v FROM r WHERE rn = 1", UniqueKey: []string{"id"}}},
		{name: "L002 recursive CTE terminates", in: Input{SQL: "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 AS n FROM r WHERE n < 5)\nSELECT n, row_number() OVER (ORDER BY n) AS rn FROM r", UniqueKey: []string{"n"}}},

		// L003
		{name: "L003 limit", in: Input{SQL: "SELECT a FROM x\nLIMIT 10"},
			want: []string{"2:1 L003 error"}, msgs: []string{"LIMIT without ORDER BY"}},
		{name: "L003 in subquery only", in: Input{SQL: "SELECT a FROM (SELECT a FROM x LIMIT 5) d ORDER BY a LIMIT 3"},
			want: []string{"1:32 L003 error"}},
		{name: "L003 union", in: Input{SQL: "SELECT a FROM x UNION ALL SELECT a FROM y limit 5"},
			want: []string{"1:43 L003 error"}},
		{name: "L003 CTE and outer", in: Input{SQL: "WITH c AS (SELECT a FROM x LIMIT 3)\nSELECT a FROM c WHERE a IN (SELECT b FROM y ORDER BY b LIMIT 2) LIMIT 1"},
			want: []string{"1:28 L003 error", "2:65 L003 error"}},
		{name: "L003 ordered", in: Input{SQL: "SELECT a FROM x ORDER BY a LIMIT 10 OFFSET 5"}},
		{name: "L003 limit 0", in: Input{SQL: "SELECT a FROM x LIMIT 0"}},

		// L004
		{name: "L004 append", in: Input{SQL: "SELECT a FROM x", Strategy: "append", Line: 4, Col: 1},
			want: []string{"4:1 L004 error"}, msgs: []string{`strategy "append" without allow_append: a rerun duplicates rows; add unique_key or partition_by so that a rerun replaces what it wrote, or set allow_append = true to accept`}},
		{name: "L004 allowed", in: Input{SQL: "SELECT a FROM x", Strategy: "append", AllowAppend: true}},
		{name: "L004 other strategy", in: Input{SQL: "SELECT a FROM x", Strategy: "delete_insert"}},

		// L005
		{name: "L005 partition never windowed", in: Input{SQL: "\n\nSELECT d FROM x", Materialized: "incremental", PartitionBy: "d"},
			want: []string{"3:1 L005 warning"}, msgs: []string{"partitioned model never uses start/end/partition: every partition reads all input"}},
		{name: "L005 windowed", in: Input{SQL: "SELECT d FROM x WHERE d >= DATE '2026-07-01'", Materialized: "incremental", PartitionBy: "d", UsesWindow: true}},
		{name: "L005 table", in: Input{SQL: "SELECT d FROM x", Materialized: "table", PartitionBy: "d"}},

		// L006
		{name: "L006 partition missing", in: Input{SQL: "SELECT a FROM x", PartitionBy: "event_date", UsesWindow: true, Materialized: "incremental", Line: 2, Col: 1},
			want: []string{"2:1 L006 error"}, msgs: []string{`partition_by column "event_date" is not in the SELECT list`}},
		{name: "L006 key missing", in: Input{SQL: "SELECT a, b AS c FROM x", UniqueKey: []string{"a", "b"}},
			want: []string{"1:1 L006 error"}, msgs: []string{`unique_key column "b" is not in the SELECT list`}},
		{name: "L006 present", in: Input{SQL: "SELECT x.Event_Date, s AS \"KEY\" FROM x", PartitionBy: "EVENT_DATE", UniqueKey: []string{"key"}}},
		{name: "L006 unknown behind star", in: Input{SQL: "SELECT * FROM x", PartitionBy: "d", UniqueKey: []string{"k"}}},

		// L007
		{name: "L007 star", in: Input{SQL: "SELECT\n  x.*, 1 AS one FROM x", Materialized: "incremental"},
			want: []string{"2:3 L007 warning"}},
		{name: "L007 table star", in: Input{SQL: "SELECT * FROM x", Materialized: "table"}},
		{name: "L007 star only in CTE", in: Input{SQL: "WITH c AS (SELECT * FROM x) SELECT a FROM c", Materialized: "incremental"}},

		// L000
		{name: "L000 cast", in: Input{SQL: "SELECT\n  a::date AS d\nFROM x"},
			want: []string{"2:4 L000 info"}, msgs: []string{`not analysed: syntax error near "::date" (:: casts are engine-specific; CAST(x AS type) is portable) at 2:4`}},
		{name: "L000 strict", in: Input{SQL: "SELECT a FROM x\nQUALIFY row_number() OVER (PARTITION BY a) = 1", StrictParse: true},
			want: []string{"2:1 L000 error"}, msgs: []string{"QUALIFY is engine-specific syntax) at 2:1"}},
		{name: "L000 only L004 survives", in: Input{SQL: "SELECT *, now() FROM db.s.t LIMIT 1", Strategy: "append", Materialized: "incremental", PartitionBy: "d", UniqueKey: []string{"k"}, Line: 1, Col: 1},
			want: []string{"1:1 L004 error", "1:26 L000 info"}, msgs: []string{"append", "three-part names"}},
		{name: "L000 exclude", in: Input{SQL: "SELECT * EXCLUDE (a) FROM x"},
			want: []string{"1:10 L000 info"}, msgs: []string{`near "EXCLUDE"`}},
		{name: "L000 two statements", in: Input{SQL: "SELECT 1; SELECT 2"},
			want: []string{"1:1 L000 info"}, msgs: []string{"2 statements"}},
		{name: "L000 not a select", in: Input{SQL: "\nDELETE FROM x"},
			want: []string{"2:1 L000 info"}, msgs: []string{"not a SELECT"}},
		{name: "L000 empty", in: Input{SQL: ""},
			want: []string{"1:1 L000 info"}, msgs: []string{"no SQL statement"}},
		{name: "L000 unterminated string", in: Input{SQL: "SELECT a FROM x WHERE b = 'oops"},
			want: []string{"1:27 L000 info"}, msgs: []string{"unterminated string at 1:27"}},
		{name: "L000 unterminated comment", in: Input{SQL: "SELECT a\nFROM x /* oops"},
			want: []string{"2:8 L000 info"}, msgs: []string{"unterminated comment at 2:8"}},
		{name: "L000 at end of input", in: Input{SQL: "SELECT a FROM"},
			want: []string{"1:14 L000 info"}, msgs: []string{"syntax error at end of input"}},

		// ANSI constructs the parser lacks are normalized, not rejected.
		{name: "ANSI casts and joins parse", in: Input{SQL: "SELECT CAST(a AS VARCHAR) AS a, TRY_CAST(b AS BIGINT) AS b, now() AS c\nFROM x FULL OUTER JOIN y ON x.k IS NOT DISTINCT FROM y.k\nWHERE x.v IS DISTINCT FROM y.v ORDER BY a NULLS LAST"},
			want: []string{"1:61 L001 error"}},

		// positions count characters, not bytes
		{name: "position after multibyte text", in: Input{SQL: "SELECT 'héllo wörld' AS s, now() AS t FROM x"},
			want: []string{"1:28 L001 error"}},
		{name: "position after a comment with multibyte text", in: Input{SQL: "SELECT /* café */ rand() AS r FROM x"},
			want: []string{"1:19 L001 error"}},
		{name: "byte order mark", in: Input{SQL: "\ufeffSELECT now() AS t FROM x"},
			want: []string{"1:9 L001 error"}},
		{name: "model position defaults to the first token", in: Input{SQL: "\n\n  -- note\n  SELECT a FROM x", Strategy: "append"},
			want: []string{"4:3 L004 error"}},
	}
	p := NewParser()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := p.Analyze(tc.in)
			got := summary(res.Findings)
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Fatalf("findings:\n got  %q\n want %q\n%s", got, tc.want, dump(res.Findings))
			}
			for i, m := range tc.msgs {
				if !strings.Contains(res.Findings[i].Message, m) {
					t.Errorf("finding %d message %q does not contain %q", i, res.Findings[i].Message, m)
				}
			}
		})
	}
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}

func TestColumns(t *testing.T) {
	tests := []struct {
		sql  string
		cols []string
		star bool
	}{
		{"SELECT a, B, c AS \"Alias\", t.D, s.t.e AS e2, 1 + 2, count(*) AS N FROM t", []string{"a", "b", "alias", "d", "e2", "", "n"}, false},
		{"SELECT x.a AS id, y.b FROM x JOIN y ON x.id = y.id", []string{"id", "b"}, false},
		{"WITH c AS (SELECT a, b FROM t) SELECT c.a AS k, b FROM c", []string{"k", "b"}, false},
		{"SELECT a AS first_name FROM t UNION ALL SELECT b AS other FROM u", []string{"first_name"}, false},
		{"(SELECT a FROM t) UNION (SELECT * FROM u)", []string{"a"}, true},
		{"SELECT *, 1 AS one FROM t", []string{"*", "one"}, true},
		{"SELECT t.*, u.x FROM t JOIN u USING (id)", []string{"t.*", "x"}, true},
		{"SELECT CAST(a AS VARCHAR) AS a_text, md5(b) FROM t", []string{"a_text", ""}, false},
		{"SELECT a `tick` FROM t", []string{"tick"}, false},
	}
	p := NewParser()
	for _, tc := range tests {
		res := p.Analyze(Input{SQL: tc.sql})
		if !res.Parsed {
			t.Errorf("%s: not parsed: %v", tc.sql, res.Findings)
			continue
		}
		if !slices.Equal(res.Columns, tc.cols) || res.Star != tc.star {
			t.Errorf("%s:\n got  %q star=%v\n want %q star=%v", tc.sql, res.Columns, res.Star, tc.cols, tc.star)
		}
	}
	if res := p.Analyze(Input{SQL: "SELECT a::int FROM t"}); res.Parsed || res.Columns != nil || res.Star {
		t.Errorf("unparsed model: got Parsed=%v Columns=%q Star=%v", res.Parsed, res.Columns, res.Star)
	}
}

func TestFindingString(t *testing.T) {
	p := NewParser()
	res := p.Analyze(Input{Path: "models/events_daily.sql", SQL: "\n\n\n\n\n\n\n\n\n\n\nSELECT a,\n       now() AS loaded_at FROM x"})
	if len(res.Findings) != 1 {
		t.Fatalf("findings: %v", res.Findings)
	}
	if got, want := res.Findings[0].String(), "models/events_daily.sql:13:8: L001 now() is nondeterministic; use {{ as_of }}"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	res = p.Analyze(Input{Path: "models/x.sql", SQL: "SELECT a FROM x QUALIFY b = 1"})
	if got, want := res.Findings[0].String(), `models/x.sql:1:17: L000 not analysed: syntax error near "QUALIFY" (QUALIFY is engine-specific syntax) at 1:17`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := (Finding{Line: 2, Col: 3, Rule: "L003", Message: "m"}).String(); got != "2:3: L003 m" {
		t.Errorf("no path: %q", got)
	}
}

func TestSeverity(t *testing.T) {
	for s, want := range map[Severity]string{Info: "info", Warning: "warning", Error: "error", Severity(7): "severity(7)"} {
		if s.String() != want {
			t.Errorf("%d: got %q want %q", int(s), s.String(), want)
		}
	}
	b, err := json.Marshal(Finding{Rule: "L001", Severity: Error})
	if err != nil || !strings.Contains(string(b), `"Severity":"error"`) {
		t.Errorf("json: %s %v", b, err)
	}
	var f Finding
	if err := json.Unmarshal(b, &f); err != nil || f.Severity != Error {
		t.Errorf("unmarshal: %v %v", f, err)
	}
	if err := json.Unmarshal([]byte(`{"Severity":"fatal"}`), &f); err == nil {
		t.Errorf("unknown severity accepted")
	}
	if !(Result{Findings: []Finding{{Severity: Warning}, {Severity: Error}}}).HasErrors() ||
		(Result{Findings: []Finding{{Severity: Warning}}}).HasErrors() {
		t.Errorf("HasErrors")
	}
}

// TestParserReuse checks that one parser gives the same answers after failures and panics.
func TestParserReuse(t *testing.T) {
	p := NewParser()
	in := Input{SQL: "SELECT a, now() AS b FROM x LIMIT 1", UniqueKey: []string{"a"}}
	first := p.Analyze(in)
	for _, sql := range []string{"SELECT (", "SELECT a::int", "", "SELECT 'x", strings.Repeat("(", 3000)} {
		p.Analyze(Input{SQL: sql})
	}
	again := p.Analyze(in)
	if !slices.Equal(summary(first.Findings), summary(again.Findings)) || !slices.Equal(first.Columns, again.Columns) {
		t.Errorf("reuse changed the result: %v / %v", first, again)
	}
}

// TestConcurrent runs one parser per goroutine (run with -race).
func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := NewParser()
			for range 50 {
				res := p.Analyze(Input{SQL: benchSQL, UniqueKey: []string{"event_key"}, PartitionBy: "event_date", Materialized: "incremental", UsesWindow: true})
				if !res.Parsed || len(res.Findings) != 0 {
					t.Errorf("unexpected: %v", res.Findings)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestTextHelpers(t *testing.T) {
	if got := blankComments("a -- x\nb /* y\nz */ c 'd -- e' \"f /* g\" # h"); got != "a     \nb     \n     c 'd -- e' \"f /* g\" # h" {
		t.Errorf("blankComments: %q", got)
	}
	if s := "SELECT 1"; blankComments(s) != s {
		t.Errorf("no comments should not copy")
	}
	if got := normalize("SELECT CAST(a AS INT), cast( (b) as double precision ) FROM t FULL JOIN u ON a IS NOT DISTINCT FROM b ORDER BY a NULLS FIRST"); got != "SELECT     (a       ),     ( (b)                     ) FROM t LEFT JOIN u ON a <=>                  b ORDER BY a            " {
		t.Errorf("normalize: %q", got)
	}
	if got := normalize("SELECT 'CAST(a AS INT)', x.cast, a IS NOT NULL FROM t"); got != "SELECT 'CAST(a AS INT)', x.cast, a IS NOT NULL FROM t" {
		t.Errorf("normalize touched a string or name: %q", got)
	}
	for _, tc := range []struct {
		s     string
		off   int
		line  int
		col   int
		first int
	}{
		{"abc", 0, 1, 1, 0},
		{"a\nbc", 3, 2, 2, 2},
		{"é\nxé", 5, 2, 3, 2},
		{"", 0, 1, 1, 0},
	} {
		line, col := position(tc.s, lineStarts(tc.s), tc.off)
		if line != tc.line || col != tc.col {
			t.Errorf("position(%q, %d) = %d:%d, want %d:%d", tc.s, tc.off, line, col, tc.line, tc.col)
		}
	}
}

// TestSyntaxErrorOffsets checks the offset read from the parser's message, including the
// truncated form used for long statements.
func TestSyntaxErrorOffsets(t *testing.T) {
	long := "SELECT a FROM x WHERE " + strings.Repeat("b = 1 AND ", 400) + "c = 1 ::int"
	p := NewParser()
	res := p.Analyze(Input{SQL: long})
	if len(res.Findings) != 1 || res.Findings[0].Rule != "L000" {
		t.Fatalf("findings: %v", res.Findings)
	}
	if want := strings.Index(long, "::") + 1; res.Findings[0].Col != want {
		t.Errorf("col %d, want %d", res.Findings[0].Col, want)
	}
	long2 := "SELECT a::int FROM x WHERE " + strings.Repeat("b = 1 AND ", 400) + "c = 1"
	res = p.Analyze(Input{SQL: long2})
	if len(res.Findings) != 1 || res.Findings[0].Col != 9 {
		t.Errorf("truncated near text: %v", res.Findings)
	}
	if off := lineColumnOffset("ab\ncd", "line 2 column 2 near"); off != 4 {
		t.Errorf("lineColumnOffset: %d", off)
	}
}

// readGoldenInput reads the settings of a testdata/lint model from its leading "-- key: value"
// lines and blanks them, as rendering does with the header comment.
func readGoldenInput(t *testing.T, path string) Input {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Path: filepath.ToSlash(path)}
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		rest, ok := strings.CutPrefix(line, "-- ")
		key, val, isSetting := strings.Cut(rest, ":")
		if !ok || !isSetting {
			break
		}
		val = strings.TrimSpace(val)
		list := func() []string {
			var out []string
			for _, v := range strings.Split(val, ",") {
				out = append(out, strings.TrimSpace(v))
			}
			return out
		}
		switch strings.TrimSpace(key) {
		case "materialized":
			in.Materialized = val
		case "strategy":
			in.Strategy = val
		case "partition_by":
			in.PartitionBy = val
		case "unique_key":
			in.UniqueKey = list()
		case "allow_append":
			in.AllowAppend = val == "true"
		case "allow_nondeterministic":
			in.AllowNondeterministic = list()
		case "strict_parse":
			in.StrictParse = val == "true"
		case "uses_window":
			in.UsesWindow = val == "true"
		default:
			t.Fatalf("%s:%d: unknown setting %q", path, i+1, key)
		}
		lines[i] = ""
	}
	for i, line := range lines {
		if strings.TrimSpace(line) != "" {
			in.Line, in.Col = i+1, 1
			break
		}
	}
	in.SQL = strings.Join(lines, "\n")
	return in
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "lint", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/lint/*.sql")
	}
	p := NewParser()
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			in := readGoldenInput(t, file)
			res := p.Analyze(in)
			var b strings.Builder
			fmt.Fprintf(&b, "# parsed=%v star=%v columns=%s\n", res.Parsed, res.Star, strings.Join(res.Columns, ","))
			for _, f := range res.Findings {
				fmt.Fprintf(&b, "%s %s\n", f.Severity, f)
			}
			golden := strings.TrimSuffix(file, ".sql") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("%s differs (run go test -update to accept):\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

// fuzzParser is shared by the fuzz target's sequential calls.
var (
	fuzzMu     sync.Mutex
	fuzzParser = NewParser()
)

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		benchSQL,
		"SELECT now() FROM t LIMIT 1",
		"SELECT a::date FROM t",
		"WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r) SELECT row_number() OVER () AS k FROM r",
		"SELECT * EXCLUDE (a) FROM db.s.t QUALIFY rank() OVER (ORDER BY a) = 1",
		"SELECT CAST(a AS VARCHAR) FROM t FULL JOIN u ON a IS DISTINCT FROM b /* x",
		"SELECT 'é', \"q\", `b` -- c\n FROM t WHERE x = $1",
		"(SELECT a FROM t LIMIT 1) UNION (SELECT b FROM u ORDER BY b LIMIT 2) LIMIT 0",
		"SELECT row_number() OVER w FROM t WINDOW w AS (w)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		fuzzMu.Lock()
		defer fuzzMu.Unlock()
		in := Input{SQL: sql, Materialized: "incremental", PartitionBy: "d", UniqueKey: []string{"k", "a"}, Strategy: "append"}
		res := fuzzParser.Analyze(in)
		lines := strings.Count(sql, "\n") + 1
		for _, fd := range res.Findings {
			if fd.Line < 1 || fd.Col < 1 || fd.Line > lines {
				t.Fatalf("bad position %d:%d (%d lines): %s", fd.Line, fd.Col, lines, fd)
			}
		}
		if res.Parsed != (res.Columns != nil) {
			t.Fatalf("Parsed=%v but Columns=%v", res.Parsed, res.Columns)
		}
		if !slices.IsSortedFunc(res.Findings, func(a, b Finding) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			if a.Col != b.Col {
				return a.Col - b.Col
			}
			return strings.Compare(a.Rule, b.Rule)
		}) {
			t.Fatalf("findings not sorted: %v", res.Findings)
		}
	})
}

// benchSQL is a realistic rendered model: a CTE deduplicating versions, a join, a
// deterministic key and a partition window.
const benchSQL = `


WITH latest AS (
  SELECT
    source_system,
    source_id,
    event_version,
    event_date,
    user_id,
    amount,
    row_number() OVER (
      PARTITION BY source_system, source_id
      ORDER BY event_version DESC, loaded_at DESC
    ) AS version_rank
  FROM raw.staging_events
  WHERE event_date >= DATE '2026-07-01' AND event_date < DATE '2026-07-02'
)
SELECT
  md5(coalesce(CAST(l.source_system AS VARCHAR), '_null_') || '|' ||
      coalesce(CAST(l.source_id AS VARCHAR), '_null_') || '|' ||
      coalesce(CAST(l.event_version AS VARCHAR), '_null_')) AS event_key,
  l.event_date,
  l.user_id,
  u.country,
  CASE WHEN l.amount < 0 THEN 0 ELSE l.amount END AS amount
FROM latest AS l
LEFT JOIN main.dim_users AS u ON u.user_id = l.user_id
WHERE l.version_rank = 1
`

func BenchmarkAnalyze(b *testing.B) {
	p := NewParser()
	in := Input{Path: "models/events_daily.sql", SQL: benchSQL, Materialized: "incremental", Strategy: "delete_insert",
		PartitionBy: "event_date", UniqueKey: []string{"event_key"}, UsesWindow: true, Line: 4, Col: 1}
	if res := p.Analyze(in); !res.Parsed || len(res.Findings) != 0 {
		b.Fatalf("bench model: %v", res.Findings)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(benchSQL)))
	for b.Loop() {
		p.Analyze(in)
	}
}

// BenchmarkAnalyzeParallel measures throughput with one parser per goroutine.
func BenchmarkAnalyzeParallel(b *testing.B) {
	in := Input{SQL: benchSQL, Materialized: "incremental", PartitionBy: "event_date", UniqueKey: []string{"event_key"}, UsesWindow: true}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		p := NewParser()
		for pb.Next() {
			p.Analyze(in)
		}
	})
}
