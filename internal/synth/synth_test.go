package synth_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/idemc/idemc/adapters/duckdb"
	_ "github.com/idemc/idemc/adapters/postgres"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/synth"
)

func TestDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := synth.Write(a, 300, 7); err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(b, 300, 7); err != nil {
		t.Fatal(err)
	}
	files := 0
	err := filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil {
			t.Errorf("%s: missing from the second project", rel)
			return nil
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", rel)
		}
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 300 {
		t.Fatalf("only %d files written", files)
	}
}

func TestMix(t *testing.T) {
	s := synth.Describe(10000, 1)
	pct := func(k int) float64 { return 100 * float64(k) / float64(s.Models) }
	for _, c := range []struct {
		name     string
		got      float64
		min, max float64
	}{
		{"views", pct(s.Views), 38, 50},
		{"tables", pct(s.Tables), 20, 30},
		{"incremental", pct(s.Incremental), 20, 30},
		{"ephemeral", pct(s.Ephemeral), 2, 7},
		{"macro users", pct(s.UseMacros), 25, 35},
	} {
		if c.got < c.min || c.got > c.max {
			t.Errorf("%s: %.1f%%, want %.0f–%.0f%%", c.name, c.got, c.min, c.max)
		}
	}
	if s.Models != 10000 {
		t.Errorf("%d models, want 10000", s.Models)
	}
}

// TestCompilesClean: every generated model compiles, on every target of the
// project, with no lint finding at all, with and without --partition.
func TestCompilesClean(t *testing.T) {
	for _, n := range []int{1, 7, 500} {
		dir := t.TempDir()
		if err := synth.Write(dir, n, int64(n)); err != nil {
			t.Fatal(err)
		}
		p, err := project.Load(dir)
		if err != nil {
			t.Fatalf("n=%d: load: %v", n, err)
		}
		if len(p.Models) != n {
			t.Fatalf("n=%d: loaded %d models", n, len(p.Models))
		}
		asOf := time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC)
		for _, target := range []string{"local", "pg"} {
			for _, part := range []string{synth.Partition, ""} {
				pl, err := compiler.Compile(p, compiler.Options{Target: target, Partition: part, AsOf: asOf, Models: true, Seeds: true})
				if err != nil {
					t.Fatalf("n=%d target=%s partition=%q: %v", n, target, part, err)
				}
				for _, f := range pl.Findings {
					t.Errorf("n=%d target=%s: %s", n, target, f)
				}
				if len(pl.Units) == 0 {
					t.Errorf("n=%d target=%s: no units", n, target)
				}
			}
		}
	}
}
