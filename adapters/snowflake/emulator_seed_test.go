package snowflake

import (
	"cmp"
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

// TestEmulatorDecimalSeed: a decimal(18,2) seed column is created as
// NUMBER(18,2) and its values, bound as their canonical text, read back
// exactly through gosnowflake (0.10 + 0.20 = 0.30, not a double's sum).
func TestEmulatorDecimalSeed(t *testing.T) {
	s := emulator(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := openEmulator(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tab, errs := seed.Parse([]byte("id,amount\n1,0.10\n2,0.20\n3,\n"), map[string]seed.Kind{"amount": seed.DecimalKind(18, 2)})
	if errs != nil {
		t.Fatal(errs)
	}
	r := plan.Relation{Schema: "decimal_seed", Name: "prices"}
	if n, err := e.LoadSeed(ctx, r, tab); err != nil || n != 3 {
		t.Fatalf("loaded %d: %v", n, err)
	}
	db := e.(*Engine).db
	var typ string
	if err := db.QueryRowContext(ctx, `SELECT data_type || '(' || numeric_precision || ',' || numeric_scale || ')' FROM information_schema.columns WHERE table_schema = 'DECIMAL_SEED' AND table_name = 'PRICES' AND column_name = 'AMOUNT'`).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	// Each value, not SUM: the emulator sums a NUMBER column as a double
	// (0.30000000000000004), which Snowflake does not.
	rows, err := db.QueryContext(ctx, `SELECT CAST("AMOUNT" AS VARCHAR) FROM "DECIMAL_SEED"."PRICES" ORDER BY "ID"`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, cmp.Or(v.String, "NULL"))
	}
	if strings.Join(got, " ") != "0.10 0.20 NULL" || typ != "NUMBER(18,2)" {
		t.Errorf("values %v type %q, want 0.10 0.20 NULL as NUMBER(18,2)", got, typ)
	}
}
