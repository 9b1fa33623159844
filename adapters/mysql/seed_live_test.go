package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/conformance"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

// seedDB opens the engine on a database of the test's own, dropped after.
func seedDB(t *testing.T) (adapters.Engine, *sql.DB, string) {
	t.Helper()
	dsn := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	admin, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	db := fmt.Sprintf("idemc_seed_%d", time.Now().UnixNano()%1e9)
	if _, err := admin.Exec("CREATE DATABASE " + db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE IF EXISTS " + db) })
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = db
	ad, _ := adapters.Lookup("mysql")
	eng, err := ad.Open(context.Background(), map[string]string{"dsn": cfg.FormatDSN()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, admin, db
}

// wideSeed is cols BIGINT columns by rows rows; cell (i, j) is i*cols+j.
func wideSeed(cols, rows int) *seed.Table {
	t := &seed.Table{}
	for j := 0; j < cols; j++ {
		t.Columns = append(t.Columns, seed.Column{Name: fmt.Sprintf("c%03d", j), Kind: seed.BigInt})
	}
	for i := 0; i < rows; i++ {
		row := make([]any, cols)
		for j := range row {
			row[j] = int64(i*cols + j)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// TestSeedWide loads seeds wider than 131 columns (500 rows × 132 columns
// passed MySQL's 65,535 placeholders per statement: error 1390) and one
// wide and long enough to need many statements, and reads every value back.
func TestSeedWide(t *testing.T) {
	eng, admin, db := seedDB(t)
	for _, c := range []struct{ cols, rows int }{{200, 3}, {132, 500}, {200, 1200}, {500, 140}} {
		t.Run(fmt.Sprintf("%dx%d", c.cols, c.rows), func(t *testing.T) {
			r := plan.Relation{Schema: db, Name: fmt.Sprintf("wide_%d_%d", c.cols, c.rows)}
			tab := wideSeed(c.cols, c.rows)
			n, err := eng.LoadSeed(context.Background(), r, tab)
			if err != nil {
				t.Fatalf("LoadSeed: %v", err)
			}
			var rows, sum int64
			last := fmt.Sprintf("c%03d", c.cols-1)
			q := fmt.Sprintf("SELECT count(*), coalesce(sum(c000 + %s), 0) FROM %s.%s", last, db, r.Name)
			if err := admin.QueryRow(q).Scan(&rows, &sum); err != nil {
				t.Fatal(err)
			}
			var want int64
			for i := 0; i < c.rows; i++ {
				want += int64(i*c.cols) + int64(i*c.cols+c.cols-1)
			}
			if n != int64(c.rows) || rows != int64(c.rows) || sum != want {
				t.Errorf("loaded %d, table has %d rows with sum %d; want %d rows, sum %d", n, rows, sum, c.rows, want)
			}
		})
	}
}

// TestSeedConcurrentLoads: runners loading one seed at once each replace
// the table whole; none fails on another's r__idemc_new (1146, 1050).
func TestSeedConcurrentLoads(t *testing.T) {
	eng, admin, db := seedDB(t)
	r := plan.Relation{Schema: db, Name: "shared"}
	const loaders, rounds = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, loaders*rounds)
	for g := 0; g < loaders; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < rounds; k++ {
				if _, err := eng.LoadSeed(context.Background(), r, wideSeed(8, 300+g)); err != nil {
					errs <- fmt.Errorf("loader %d round %d: %w", g, k, err)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	var msgs []string
	for err := range errs {
		msgs = append(msgs, err.Error())
	}
	if len(msgs) > 0 {
		t.Fatalf("%d of %d loads failed:\n%s", len(msgs), loaders*rounds, strings.Join(msgs, "\n"))
	}
	var n int
	if err := admin.QueryRow(fmt.Sprintf("SELECT count(*) FROM %s.shared", db)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < 300 || n > 300+loaders-1 {
		t.Errorf("the table has %d rows: not one load's", n)
	}
}
