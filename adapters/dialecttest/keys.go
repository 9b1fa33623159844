package dialecttest

import (
	"database/sql"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
)

// KeyCase is a surrogate key's SQL parts and the key DESIGN §5 gives them.
type KeyCase struct {
	Exprs []string
	Want  string
}

func str(s string) *string { return &s }

// KeyCases cover text, integer and date parts, NULL against the empty
// string, the separator inside a part and non-ASCII text.
func KeyCases() []KeyCase {
	key := sqlgen.SurrogateKeyOf
	return []KeyCase{
		{[]string{"'shop'", "42", "DATE '2026-07-01'"}, key(str("shop"), str("42"), str("2026-07-01"))},
		{[]string{"'a|b'", "'c'"}, key(str("a|b"), str("c"))},
		{[]string{"'a'", "'b|c'"}, key(str("a"), str("b|c"))}, // differs from the case above
		{[]string{"NULL", "'x'"}, key(nil, str("x"))},
		{[]string{"''", "'x'"}, key(str(""), str("x"))}, // empty is not NULL
		{[]string{"'~'"}, key(str("~"))},
		{[]string{"'grüße'"}, key(str("grüße"))},
		{[]string{"-7"}, key(str("-7"))},
	}
}

// SurrogateKeys evaluates d's key expression for every KeyCase on db (an
// in-memory DuckDB the test opens) and compares it with the key computed in
// Go. translate, when set, turns the engine's spelling into DuckDB's (the
// only difference must be the function names).
func SurrogateKeys(t *testing.T, db *sql.DB, d adapters.Literals, translate func(string) string) {
	t.Helper()
	for _, tc := range KeyCases() {
		expr := d.SurrogateKey(tc.Exprs)
		if translate != nil {
			expr = translate(expr)
		}
		var got string
		if err := db.QueryRow("SELECT " + expr).Scan(&got); err != nil {
			t.Fatalf("%s: surrogate_key(%v): %v\n%s", d.Name(), tc.Exprs, err, expr)
		}
		if got != tc.Want {
			t.Errorf("%s: surrogate_key(%v) = %s, want %s", d.Name(), tc.Exprs, got, tc.Want)
		}
	}
}
