package selector

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/idemc/idemc/compiler/dag"
)

// fixture is a small project:
//
//	src:raw.events (a source: in the graph, not a node)
//	      |
//	raw_events -> stg_events -> events_daily -> summary
//	raw_users  -> stg_users  -> events_daily
//	              stg_users  -> dim_users    -> summary
//	orphan
func fixture() ([]Node, *dag.Graph) {
	nodes := []Node{
		{Name: "raw_events", Path: "seeds/raw_events.csv", Tags: []string{"raw"}},
		{Name: "raw_users", Path: "seeds/raw_users.csv", Tags: []string{"raw"}},
		{Name: "stg_events", Path: "models/staging/stg_events.sql", Tags: []string{"staging", "daily"}, Sources: []string{"raw.events"}, State: "modified"},
		{Name: "stg_users", Path: "models/staging/stg_users.sql", Tags: []string{"staging"}},
		{Name: "events_daily", Path: "models/marts/events_daily.sql", Tags: []string{"daily", "finance"},
			Config: map[string]string{"materialized": "incremental", "strategy": "delete_insert"}, Result: "fail"},
		{Name: "dim_users", Path: "models/marts/dim_users.sql", Tags: []string{"finance"}, Config: map[string]string{"materialized": "incremental", "strategy": "merge"}, State: "new"},
		{Name: "summary", Path: "models/marts/reports/summary.sql"},
		{Name: "orphan", Path: "models/misc/orphan.sql", Tags: []string{"adhoc"}},
	}
	g := dag.New()
	for _, n := range nodes {
		g.Add(n.Name)
	}
	for _, e := range [][2]string{
		{"src:raw.events", "raw_events"},
		{"raw_events", "stg_events"},
		{"raw_users", "stg_users"},
		{"stg_events", "events_daily"},
		{"stg_users", "events_daily"},
		{"stg_users", "dim_users"},
		{"events_daily", "summary"},
		{"dim_users", "summary"},
	} {
		g.Connect(e[0], e[1])
	}
	return nodes, g
}

func list(s string) []string { return strings.Fields(s) }

func TestSelect(t *testing.T) {
	nodes, g := fixture()
	all := "dim_users events_daily orphan raw_events raw_users stg_events stg_users summary"
	tests := []struct {
		name             string
		include, exclude []string
		want             string // space-separated sorted names
		err              string // substring of the error
	}{
		{name: "empty include is everything", want: all},
		{name: "single name", include: list("events_daily"), want: "events_daily"},
		{name: "ancestors", include: []string{"+events_daily"}, want: "events_daily raw_events raw_users stg_events stg_users"},
		{name: "descendants", include: []string{"events_daily+"}, want: "events_daily summary"},
		{name: "both", include: []string{"+dim_users+"}, want: "dim_users raw_users stg_users summary"},
		{name: "1+ ancestors", include: []string{"1+events_daily"}, want: "events_daily stg_events stg_users"},
		{name: "2+ ancestors", include: []string{"2+events_daily"}, want: "events_daily raw_events raw_users stg_events stg_users"},
		{name: "+1 descendants", include: []string{"stg_users+1"}, want: "dim_users events_daily stg_users"},
		{name: "+2 descendants", include: []string{"stg_users+2"}, want: "dim_users events_daily stg_users summary"},
		{name: "depth both sides", include: []string{"1+dim_users+1"}, want: "dim_users stg_users summary"},
		{name: "sources are never selected", include: []string{"+stg_events"}, want: "raw_events stg_events"},
		{name: "@ operator", include: []string{"@stg_events"}, want: "events_daily raw_events raw_users stg_events stg_users summary dim_users"},
		{name: "union in one string", include: []string{"stg_events  dim_users\torphan"}, want: "dim_users orphan stg_events"},
		{name: "union across strings", include: []string{"stg_events", "dim_users"}, want: "dim_users stg_events"},
		{name: "intersection of tags", include: []string{"tag:daily,tag:finance"}, want: "events_daily"},
		{name: "source", include: []string{"source:raw"}, want: "stg_events"},
		{name: "source table", include: []string{"source:raw.events+"}, want: "events_daily stg_events summary"},
		{name: "source unknown", include: []string{"source:crm"}, err: `no model has source "crm" (the models have raw.events)`},
		{name: "config", include: []string{"config.materialized:incremental"}, want: "dim_users events_daily"},
		{name: "config glob", include: []string{"config.strategy:m*"}, want: "dim_users"},
		{name: "config and tag", include: []string{"config.materialized:incremental,tag:daily"}, want: "events_daily"},
		{name: "state modified", include: []string{"state:modified+"}, want: "events_daily stg_events summary"},
		{name: "state new", include: []string{"state:new"}, want: "dim_users"},
		{name: "result fail", include: []string{"result:fail"}, want: "events_daily"},
		{name: "result nothing", include: []string{"result:skipped"}, want: ""},
		{name: "intersection with graph op", include: []string{"+summary,tag:staging"}, want: "stg_events stg_users"},
		{name: "union of intersections", include: []string{"tag:daily,tag:staging tag:raw,raw_users"}, want: "raw_users stg_events"},
		{name: "tag", include: []string{"tag:raw"}, want: "raw_events raw_users"},
		{name: "tag glob", include: []string{"tag:fin*"}, want: "dim_users events_daily"},
		{name: "tag with descendants", include: []string{"tag:raw+1"}, want: "raw_events raw_users stg_events stg_users"},
		{name: "path directory", include: []string{"path:models/staging"}, want: "stg_events stg_users"},
		{name: "path directory is recursive", include: []string{"path:models/marts"}, want: "dim_users events_daily summary"},
		{name: "path cleaned", include: []string{"path:./models/staging/"}, want: "stg_events stg_users"},
		{name: "path backslashes", include: []string{`path:models\staging`}, want: "stg_events stg_users"},
		{name: "path file", include: []string{"path:models/marts/dim_users.sql"}, want: "dim_users"},
		{name: "path glob", include: []string{"path:models/*/stg_*.sql"}, want: "stg_events stg_users"},
		{name: "path glob on directory", include: []string{"path:models/m*"}, want: "dim_users events_daily orphan summary"},
		{name: "path root", include: []string{"path:."}, want: all},
		{name: "name glob", include: []string{"stg_*"}, want: "stg_events stg_users"},
		{name: "name glob suffix", include: []string{"*_daily"}, want: "events_daily"},
		{name: "star", include: []string{"*"}, want: all},
		{name: "exclude only", exclude: []string{"tag:raw"}, want: "dim_users events_daily orphan stg_events stg_users summary"},
		{name: "include minus exclude", include: []string{"+summary"}, exclude: []string{"path:seeds", "dim_users"}, want: "events_daily stg_events stg_users summary"},
		{name: "exclude everything", include: []string{"orphan"}, exclude: []string{"*"}, want: ""},
		{name: "exact names only", include: []string{"stg"}, err: `selector: no model named "stg"`},
		{name: "unknown with suggestion", include: []string{"+evnts_daily"}, err: `selector: no model named "evnts_daily" (did you mean "events_daily"?)`},
		{name: "unknown without suggestion", include: []string{"zzz"}, err: `selector: no model named "zzz"`},
		{name: "unknown in exclude", exclude: []string{"dim_user"}, err: `selector: no model named "dim_user" (did you mean "dim_users"?)`},
		{name: "unknown tag", include: []string{"tag:daly"}, err: `selector: no model has tag "daly" (did you mean "daily"?)`},
		{name: "path must end at a directory boundary", include: []string{"path:models/mart"}, err: `selector: no model under path "models/mart" (did you mean "models/marts"?)`},
		{name: "glob matching nothing", include: []string{"foo*"}, err: `selector: no model matches "foo*"`},
		{name: "syntax error", include: []string{"tag:"}, err: `selector: col 4: missing value after "tag:" in "tag:"`},
		{name: "every error is reported", include: []string{"evnts_daily", "++x"}, exclude: []string{"tag:nope"},
			err: "selector: no model named \"evnts_daily\" (did you mean \"events_daily\"?)\nselector: col 2: unexpected '+' in \"++x\"\nselector: no model has tag \"nope\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(nodes, g, tt.include, tt.exclude)
			if tt.err != "" {
				if err == nil {
					t.Fatalf("Select = %q, want error %q", got, tt.err)
				}
				if !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %q\nwant      %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := list(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Select = %q\nwant     %q", got, want)
			}
		})
	}
}

func TestSelectSyntaxErrorType(t *testing.T) {
	nodes, g := fixture()
	_, err := Select(nodes, g, []string{",a"}, nil)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Col != 1 || se.Input != ",a" {
		t.Fatalf("error %#v, want a *SyntaxError at col 1", err)
	}
}

func TestSelectNilGraph(t *testing.T) {
	nodes, _ := fixture()
	got, err := Select(nodes, nil, []string{"+stg_events+", "tag:raw"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"raw_events", "raw_users", "stg_events"}; !slices.Equal(got, want) {
		t.Errorf("Select = %q, want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in  string
		col int
		msg string
	}{
		{"", 1, "empty selection"},
		{"   ", 1, "empty selection"},
		{"tag:", 4, `missing value after "tag:"`},
		{"path:", 5, `missing value after "path:"`},
		{"++x", 2, "unexpected '+'"},
		{"x++", 3, "unexpected '+'"},
		{",a", 1, "expected a selector before ','"},
		{"a,", 2, "expected a selector after ','"},
		{"a,,b", 2, "expected a selector after ','"},
		{"a, b", 2, "expected a selector after ','"},
		{"a ,b", 3, "expected a selector before ','"},
		{"+", 1, "expected a model name, tag: or path:"},
		{"2+", 2, "expected a model name, tag: or path:"},
		{"@", 1, "expected a model name, tag: or path:"},
		{"0+x", 1, "depth must be at least 1"},
		{"x+0", 3, "depth must be at least 1"},
		{"99999999+x", 1, "depth too large"},
		{"x+1a", 4, "unexpected 'a'"},
		{"a+b", 3, "unexpected 'b'"},
		{"@+x", 2, "'@' cannot be combined with a leading '+'"},
		{"a@b", 2, "'@' is only allowed at the start of a selector"},
		{"tags:daily", 1, `unknown selector method "tags" (did you mean "tag:"?)`},
		{"config:x", 1, `config needs a setting: config.<key>:<value>, such as config.materialized:table`},
		{"state:mod", 7, `state:mod is not a state selector (want one of modified, new)`},
		{"result:ok", 8, `result:ok is not a result selector (want one of success, warn, error, fail, skipped)`},
		{"sorce:raw", 1, `unknown selector method "sorce" (did you mean "source:"?)`},
		{"[a", 1, `bad glob pattern "[a"`},
		{"ok x\x00", 5, `unexpected character '\x00'`},
		{"a\xffb", 2, "invalid UTF-8"},
		{"a\u00a0b", 2, `unexpected character '\u00a0'`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error = %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if se.Col != tt.col || se.Msg != tt.msg || se.Input != tt.in {
			t.Errorf("Parse(%q) = col %d %q, want col %d %q", tt.in, se.Col, se.Msg, tt.col, tt.msg)
		}
	}
	_, err := Parse("a++")
	if got, want := err.Error(), `selector: col 3: unexpected '+' in "a++"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestParseStringRoundTrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"events_daily", "events_daily"},
		{"+events_daily+", "+events_daily+"},
		{"2+events_daily+3", "2+events_daily+3"},
		{"007+x+010", "7+x+10"},
		{"@stg_users", "@stg_users"},
		{"@stg_users+", "@stg_users+"},
		{"  a \t b\n", "a b"},
		{"tag:daily,path:models/marts b+", "tag:daily,path:models/marts b+"},
		{"path:./models//staging/", "path:models/staging"},
		{`path:models\staging`, "path:models/staging"},
		{"+tag:raw+1", "+tag:raw+1"},
		{"stg_*,*_daily *", "stg_*,*_daily *"},
		{"123", "123"},
		{"+123", "+123"},
		{"1+2+3", "1+2+3"},
		{"path:C:/x", "path:C:/x"},
		{"événements", "événements"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		got := e.String()
		if got != tt.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		again, err := Parse(got)
		if err != nil || again.String() != got {
			t.Errorf("Parse(%q) = %v, %v; does not round-trip", got, again, err)
		}
	}
}

func TestParseStructure(t *testing.T) {
	e, err := Parse("2+a+ tag:x,b")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]atom{
		{{col: 1, value: "a", parents: true, parentDepth: 2, children: true}},
		{{col: 6, method: "tag", value: "x"}, {col: 12, value: "b"}},
	}
	if len(e.union) != len(want) {
		t.Fatalf("union = %+v", e.union)
	}
	for i := range want {
		if !slices.Equal(e.union[i], want[i]) {
			t.Errorf("group %d = %+v, want %+v", i, e.union[i], want[i])
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "a", "+a", "a+", "2+a+3", "@a", "tag:x", "path:models/staging", "a,b c", "*", "stg_*",
		"tag:", "++x", ",a", "a,", "[", "0+a", "a\xff", "path:./x/../y", "1+2+3",
	} {
		f.Add(s)
	}
	nodes, g := fixture()
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T is not a *SyntaxError", s, err)
			}
			if se.Col < 1 || se.Col > max(1, len(s)) {
				t.Fatalf("Parse(%q): col %d outside the input", s, se.Col)
			}
			if se.Input != s {
				t.Fatalf("Parse(%q): Input = %q", s, se.Input)
			}
			return
		}
		out := e.String()
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", s, out, err)
		}
		if again.String() != out {
			t.Fatalf("round trip: %q -> %q -> %q", s, out, again.String())
		}
		// Evaluation must not panic either.
		_, _ = Select(nodes, g, []string{s}, nil)
	})
}
