package duckdb

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const openRaceEnv = "IDEMC_DUCKDB_OPEN_RACE"

// TestOpenRace starts several processes that open one missing database
// file at the same moment, as concurrent idemc runs on a fresh project do.
// DuckDB's own create path opens the file with O_TRUNC before it takes its
// lock, so a second creator used to empty the first one's file after its
// header was written: the file stayed "not a valid DuckDB database file"
// for good (found by TestConcurrent in CI). Every round must leave a file
// that opens. The race needs a loaded machine to show: four copies of this
// test at once failed within five rounds before the fix (-test.count=5).
func TestOpenRace(t *testing.T) {
	if path := os.Getenv(openRaceEnv); path != "" {
		openRaceChild(path)
	}
	const rounds, procs = 12, 4
	dir := t.TempDir()
	for r := 0; r < rounds; r++ {
		path := filepath.Join(dir, fmt.Sprintf("r%02d", r), "w.duckdb")
		var wg sync.WaitGroup
		// The processes open at one instant, not as they happen to start.
		at := time.Now().Add(150 * time.Millisecond).UnixNano()
		outs := make([]string, procs)
		for p := 0; p < procs; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "-test.run=^TestOpenRace$", "-test.count=1")
				cmd.Env = append(os.Environ(), openRaceEnv+"="+path, fmt.Sprintf("%s_AT=%d", openRaceEnv, at))
				b, _ := cmd.CombinedOutput()
				outs[p] = string(b)
			}()
		}
		wg.Wait()
		for p, out := range outs {
			// A process that found the file held is fine; any other
			// failure is not.
			if strings.Contains(out, "openrace: ") && !strings.Contains(out, "openrace: ok") && !strings.Contains(out, "is locked") {
				t.Errorf("round %d, process %d: %s", r, p, out)
			}
		}
		e, err := Open(context.Background(), map[string]string{"path": path})
		if err != nil {
			t.Fatalf("round %d: the file does not open after the race: %v", r, err)
		}
		if _, err := e.(*Engine).db.Exec("SELECT count(*) FROM idemc_race"); err != nil {
			t.Errorf("round %d: the winner's table is gone: %v", r, err)
		}
		e.Close()
	}
}

// openRaceChild opens path, creates a table, and exits: "openrace: ok" when
// it wrote, the error otherwise.
func openRaceChild(path string) {
	if at, err := strconv.ParseInt(os.Getenv(openRaceEnv+"_AT"), 10, 64); err == nil {
		time.Sleep(time.Until(time.Unix(0, at)))
	}
	e, err := Open(context.Background(), map[string]string{"path": path})
	if err == nil {
		_, err = e.(*Engine).db.Exec("CREATE TABLE IF NOT EXISTS idemc_race AS SELECT range AS i FROM range(1000)")
		e.Close()
	}
	if err != nil {
		fmt.Println("openrace: " + firstLine(err.Error()))
		os.Exit(0)
	}
	fmt.Println("openrace: ok")
	os.Exit(0)
}
