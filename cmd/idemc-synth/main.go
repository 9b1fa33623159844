// Command idemc-synth writes a synthetic idemc project for benchmarks:
//
//	go run ./cmd/idemc-synth -n 10000 -o /tmp/p10k
//	cd /tmp/p10k && idemc compile --partition 2026-07-01
//
// The project depends only on -n and -seed (see internal/synth).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/idemc/idemc/internal/synth"
)

func main() {
	n := flag.Int("n", 1000, "number of models")
	out := flag.String("o", "", "project folder to write (its project.toml, models/, macros/, seeds/, tests/ and target/ are replaced)")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: idemc-synth -n 10000 -o /tmp/p10k [-seed 1]")
		os.Exit(2)
	}
	if err := synth.Write(*out, *n, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "idemc-synth:", err)
		os.Exit(1)
	}
	s := synth.Describe(*n, *seed)
	fmt.Printf("wrote %d models to %s: %d views, %d tables, %d incremental (%d partitioned by day, %d merge, %d with a watermark), %d ephemeral; %d use macros; %d refs\n",
		s.Models, *out, s.Views, s.Tables, s.Incremental, s.Partitioned, s.Merge, s.Watermark, s.Ephemeral, s.UseMacros, s.Refs)
	fmt.Printf("compile one partition: cd %s && idemc compile --partition %s\n", *out, synth.Partition)
}
