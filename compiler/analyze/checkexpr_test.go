package analyze

import (
	"strings"
	"testing"
)

func TestCheckExpr(t *testing.T) {
	cases := []struct {
		expr string
		want string // substring of the error; "" = accepted
	}{
		{"sum(amount) >= 0", ""},
		{"count(*) FILTER (WHERE x::int > 5) = 0", ""}, // engine-only: scan alone
		{"max(name) <> 'it''s; -- not a comment'", ""},
		{`sum("a""b") = 0`, ""},
		{"sum(`amount`) >= 0", ""},
		{"sum(x) <= (SELECT count(*) FROM t)", ""},
		{"min(x) = 1, max(x) = 2", "list of expressions"},
		{"", "empty"},
		{"   ", "empty"},
		{"1=1) AS ok FROM t; DROP TABLE x; --", "closes a parenthesis"},
		{"(1=1; DROP TABLE x)", "';' at byte 5"},
		{"sum(x) -- tail", "comment"},
		{"sum(x) /* tail */", "comment"},
		{"sum(x) # tail", "comment"},
		{"sum((x)", "1 parentheses left open"},
		{"$$ ) $$ = ''", "'$' at byte 1"},
		{`'a\' = 'b'`, "backslash"},
		{`"a\" = 1`, "backslash"},
		{"'open", "never closed"},
		{"`a;b` = 1", "backquoted name"},
		{"x\x00 = 1", "NUL"},
		{"1 AS ok", "alias"},
		{"1 FROM t", "query clause"},
		{"*", "'*'"},
		{"1 UNION SELECT 2", "query tail"},
	}
	p := NewParser()
	for _, tc := range cases {
		err := p.CheckExpr(tc.expr)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckExpr(%q) = %v, want nil", tc.expr, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckExpr(%q) = %v, want an error containing %q", tc.expr, err, tc.want)
		}
	}
}
