package adapters_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/dialecttest"
	"github.com/idemc/idemc/adapters/seed"
)

// TestSeedLoadGolden prints, for every engine whose seeds load through SQL
// statements (adapters.SeedLoader), the statements of one load — build
// aside, insert in batches, swap — and compares them with
// testdata/seed/<engine>.sql (go test ./adapters -update rewrites). A
// load's random aside name is shown as <aside>.
func TestSeedLoadGolden(t *testing.T) {
	tab, errs := seed.Parse([]byte("id,amount,ok,d,ts,zip,price\n1,2.5,true,2026-07-01,2026-07-01 10:00:00.5,00123,12.3\n2,,false,,,it's,\n"),
		map[string]seed.Kind{"price": seed.DecimalKind(18, 2)})
	if errs != nil {
		t.Fatal(errs)
	}
	loaders := 0
	for _, name := range adapters.Names() {
		ad, _ := adapters.Lookup(name)
		sl, ok := ad.Dialect.(adapters.SeedLoader)
		if !ok {
			continue
		}
		loaders++
		t.Run(name, func(t *testing.T) {
			load := sl.SeedLoad(adapters.Relation{Schema: "raw", Name: "zips"}, tab)
			var b strings.Builder
			_ = load.Run(func(q string, args ...any) error {
				fmt.Fprintf(&b, "%s;\n", q)
				if args != nil {
					fmt.Fprintf(&b, "-- bound: %v\n", args)
				}
				return nil
			})
			got := strings.ReplaceAll(b.String(), ad.Dialect.Quote(load.Aside.Name), ad.Dialect.Quote("<aside>"))
			dialecttest.Golden(t, filepath.Join("testdata", "seed", name+".sql"), got)
		})
	}
	if loaders != 3 {
		t.Errorf("%d engines load seeds through SQL statements, want 3 (MySQL, Snowflake, Spark)", loaders)
	}
}
