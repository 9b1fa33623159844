package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/synth"
)

// BenchmarkFormats compares load + compile of the same 1,000-model project
// in idemc's format (project.toml and headers) and in dbt's
// (dbt_project.yml, profiles.yml, config() calls and properties files;
// internal/synth WriteDBT), without the load cache. The dbt copy lacks the
// checks dbt has no test for (min_rows, expect, row_count_matches):
//
//	go test ./compiler -run '^$' -bench Formats -benchtime 10x -count 5
func BenchmarkFormats(b *testing.B) {
	const n = 1000
	for _, f := range []struct {
		name  string
		write func(string, int, int64) error
	}{{"native", synth.Write}, {"dbt", synth.WriteDBT}} {
		b.Run(f.name, func(b *testing.B) {
			dir := filepath.Join(os.TempDir(), fmt.Sprintf("idemc-bench-%s-v%d-%d", f.name, synth.Version, n))
			if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
				if err := f.write(dir, n, 1); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			opts := compiler.Options{Partition: synth.Partition, AsOf: benchAsOf, Models: true}
			b.Run("load", func(b *testing.B) {
				measure(b, n, func() {
					if _, err := project.Load(dir); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run("load+compile", func(b *testing.B) {
				measure(b, n, func() {
					p, err := project.Load(dir)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := compiler.Compile(p, opts); err != nil {
						b.Fatal(err)
					}
				})
			})
		})
	}
}
