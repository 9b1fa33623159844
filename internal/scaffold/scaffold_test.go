package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/idemc/idemc/adapters/bigquery" // every engine's scaffold compiles
	_ "github.com/idemc/idemc/adapters/duckdb"
	_ "github.com/idemc/idemc/adapters/mysql"
	_ "github.com/idemc/idemc/adapters/postgres"
	_ "github.com/idemc/idemc/adapters/snowflake"
	_ "github.com/idemc/idemc/adapters/spark"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

func TestWrite(t *testing.T) {
	now := time.Date(2027, 3, 15, 9, 0, 0, 0, time.UTC)
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "Sales-Mart")
			wrote, err := Write(Options{Dir: dir, Engine: engine, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(wrote, " "); got != ".gitignore models/marts/orders_daily.sql models/staging/stg_orders.sql project.toml seeds/raw_orders.csv tests/no_negative_amounts.sql" {
				t.Errorf("wrote %s", got)
			}
			p, err := project.Load(dir)
			if err != nil {
				t.Fatalf("the scaffold does not load: %v", err)
			}
			if p.Name != "sales_mart" || p.DefaultTarget != engine || p.Targets[engine].Engine != engine {
				t.Errorf("name %q, default target %q", p.Name, p.DefaultTarget)
			}
			pl, err := compiler.Compile(p, compiler.Options{AsOf: now, Models: true, Seeds: true})
			if err != nil {
				t.Fatalf("the scaffold does not compile: %v", err)
			}
			for _, f := range pl.Findings {
				t.Errorf("lint finding: %v", f)
			}
			// The model starts on the first of the previous month, where the seed's rows are.
			var days []string
			for _, u := range pl.Units {
				if u.Model == "orders_daily" {
					days = append(days, u.Partition)
				}
			}
			if len(days) != 28+15 || days[0] != "2027-02-01" || days[len(days)-1] != "2027-03-15" {
				t.Errorf("orders_daily plans %d days, %v … %v; want 2027-02-01 … 2027-03-15", len(days), days[0], days[len(days)-1])
			}
			seed, _ := os.ReadFile(filepath.Join(dir, "seeds", "raw_orders.csv"))
			model, _ := os.ReadFile(filepath.Join(dir, "models", "marts", "orders_daily.sql"))
			if !strings.Contains(string(seed), ",2027-02-01,") || !strings.Contains(string(model), `start        = "2027-02-01"`) {
				t.Errorf("dates are not relative to %s:\n%s\n%s", now, seed, model)
			}
		})
	}
}

func TestWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "project.toml")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Write(Options{Dir: dir, Engine: "duckdb", Now: time.Now()})
	if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "project.toml") {
		t.Errorf("a non-empty folder: %v", err)
	}
	if b, _ := os.ReadFile(keep); string(b) != "mine" {
		t.Errorf("init changed an existing file: %q", b)
	}
	if _, err := Write(Options{Dir: filepath.Join(dir, "x"), Engine: "oracle"}); err == nil || !strings.Contains(err.Error(), "use one of duckdb") {
		t.Errorf("an unknown engine: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an unknown engine still made the folder")
	}
}
