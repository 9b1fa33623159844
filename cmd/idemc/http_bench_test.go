package main

import (
	"fmt"
	"io"
	"testing"

	"github.com/idemc/idemc/internal/httpsource/testapi"
	"github.com/idemc/idemc/internal/testtree"
)

// BenchmarkHTTPIngestDuckDB ingests 10,000 records in pages of 100 and
// 1,000 into a fresh DuckDB file per iteration (records/s is the figure in
// docs/benchmarks.md), then reruns it over the unchanged API.
func BenchmarkHTTPIngestDuckDB(b *testing.B) {
	for _, size := range []int{100, 1000} {
		for _, rerun := range []bool{false, true} {
			name := fmt.Sprintf("pages_of_%d/first", size)
			if rerun {
				name = fmt.Sprintf("pages_of_%d/rerun", size)
			}
			benchIngest(b, name, size, rerun)
		}
	}
}

func benchIngest(b *testing.B, name string, size int, rerun bool) {
	api := testapi.New(10000, size)
	url, stop := api.Start()
	defer stop()
	{
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := testtree.Write(b, map[string]string{"project.toml": fmt.Sprintf(httpKillToml, url)})
				if rerun {
					if code := runWith([]string{"ingest", "--project", dir}, io.Discard, io.Discard, nil); code != 0 {
						b.Fatalf("exit %d", code)
					}
				}
				b.StartTimer()
				if code := runWith([]string{"ingest", "--project", dir}, io.Discard, io.Discard, nil); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
