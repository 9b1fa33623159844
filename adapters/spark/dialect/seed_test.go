package dialect

import (
	"testing"

	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

// TestSeedInsert: each value is its canonical text cast to its column's
// type; an empty field is NULL; quotes in text are escaped.
func TestSeedInsert(t *testing.T) {
	tab, errs := seed.Parse([]byte("id,amount,ok,d,ts,zip\n1,2.5,true,2026-07-01,2026-07-01 10:00:00.5,00123\n2,,false,,,it's\n"), nil)
	if errs != nil {
		t.Fatal(errs)
	}
	var got string
	for b := range NewDialect().LiteralSeedBatches(plan.Relation{Schema: "raw", Name: "s"}, tab, 2) {
		got += b.SQL
	}
	want := "INSERT INTO `raw`.`s` VALUES (CAST('1' AS BIGINT), CAST('2.5' AS DOUBLE), CAST('true' AS BOOLEAN), CAST('2026-07-01' AS DATE), " +
		"CAST('2026-07-01 10:00:00.5' AS TIMESTAMP), CAST('00123' AS STRING)), (CAST('2' AS BIGINT), NULL, CAST('false' AS BOOLEAN), NULL, NULL, CAST('it\\'s' AS STRING))"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}
