package adapters_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/duckdb/dialect"
)

// catalogSession answers every query with a catalog listing of three
// schemas; the rest of Session is not used.
type catalogSession struct{ adapters.Session }

func (catalogSession) Query(context.Context, string, int) ([]string, [][]string, error) {
	return []string{"table_schema", "table_name"}, [][]string{{"a", "t1"}, {"B", "t2"}, {"c", "t3"}}, nil
}

// TestListRelationsSchemas: the catalog query's rows of other schemas are
// left out, case-insensitively, as Spark's SHOW TABLES leaves them unread;
// nil lists every schema.
func TestListRelationsSchemas(t *testing.T) {
	for _, tc := range []struct {
		schemas []string
		want    string
	}{
		{nil, "[[a t1] [B t2] [c t3]]"},
		{[]string{"b", "c"}, "[[B t2] [c t3]]"},
		{[]string{"zz"}, "[]"},
	} {
		rels, err := adapters.ListRelations(context.Background(), catalogSession{}, dialect.NewDialect(), tc.schemas)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(rels); got != tc.want {
			t.Errorf("schemas %v: %s, want %s", tc.schemas, got, tc.want)
		}
	}
}
