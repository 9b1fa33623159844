// Command idemc-synth writes a synthetic idemc project for benchmarks:
//
//	go run ./cmd/idemc-synth -n 10000 -o /tmp/p10k
//	cd /tmp/p10k && idemc compile --partition 2026-07-01
//
// The project depends only on -n and -seed (see internal/synth). -shape
// deep writes 50 layers of n/50 views (each reading three of the layer
// below), -shape fanin n-n/100 leaf views, n/100-1 tables of 100 refs each
// and one table "top" reading those (compile them with --select for the
// top, before a first build: see docs/benchmarks.md).
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
	shape := flag.String("shape", "synthetic", "synthetic, deep (50 layers) or fanin (one table over n/100 tables over the rest)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: idemc-synth -n 10000 -o /tmp/p10k [-seed 1]")
		os.Exit(2)
	}
	switch *shape {
	case "synthetic":
	case "deep", "fanin":
		if err := writeShape(*shape, *out, *n); err != nil {
			fmt.Fprintln(os.Stderr, "idemc-synth:", err)
			os.Exit(1)
		}
		return
	default:
		fmt.Fprintf(os.Stderr, "idemc-synth: -shape %q: want synthetic, deep or fanin\n", *shape)
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

// writeShape writes the deep or fan-in project of about n models.
func writeShape(shape, out string, n int) error {
	if shape == "deep" {
		width := max(n/50, 1)
		fmt.Printf("wrote 50 layers of %d views to %s; top layer: m49_0 … m49_%d\n", width, out, width-1)
		return synth.WriteDeep(out, 50, width)
	}
	mids := max(n/100-1, 1)
	fmt.Printf("wrote %d leaf views, %d tables and the table top to %s\n", n-mids-1, mids, out)
	return synth.WriteFanIn(out, n-mids-1, mids)
}
