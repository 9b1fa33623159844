package duckdb_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters/duckdb"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

// seedCSV is a seed of n rows with one column of every kind, zip codes with
// leading zeros and some empty (NULL) fields.
func seedCSV(n int) string {
	var b strings.Builder
	b.WriteString("id,d,ts,amount,flag,name,zip\n")
	for i := 0; i < n; i++ {
		amount := fmt.Sprintf("%d.%02d", i%1000, i%100)
		if i%17 == 0 {
			amount = ""
		}
		fmt.Fprintf(&b, "%d,2026-07-%02d,2026-07-%02d %02d:%02d:00,%s,%t,user %d,%05d\n",
			i, i%28+1, i%28+1, i%24, i%60, amount, i%2 == 0, i, i%100000)
	}
	return b.String()
}

// BenchmarkSeedLoad100k loads a 100,000-row seed into DuckDB: parsing and
// typing the file (done when the project loads) and loading the table
// through the appender, as idemc seed does.
func BenchmarkSeedLoad100k(b *testing.B) {
	dir := b.TempDir()
	data := []byte(seedCSV(100_000))
	ctx := context.Background()
	eng, err := duckdb.Open(ctx, map[string]string{"path": filepath.Join(dir, "w.duckdb")})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	r := plan.Relation{Schema: "raw", Name: "big"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, errs := seed.Parse(data, nil)
		if errs != nil {
			b.Fatal(errs)
		}
		n, err := eng.LoadSeed(ctx, r, t)
		if err != nil || n != 100_000 {
			b.Fatalf("loaded %d rows: %v", n, err)
		}
	}
}

// BenchmarkSeedParse100k is the parse-and-type half of BenchmarkSeedLoad100k.
func BenchmarkSeedParse100k(b *testing.B) {
	data := []byte(seedCSV(100_000))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, errs := seed.Parse(data, nil); errs != nil {
			b.Fatal(errs)
		}
	}
}
