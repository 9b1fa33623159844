package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteJSONConcurrent: runs sharing target/ write run_results.json and
// manifest.json at once; none fails (a shared "path.tmp" made ~1 run in 60
// exit 1 after every unit succeeded), the file is always one whole write,
// and no temporary file is left.
func TestWriteJSONConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "target", "run_results.json")
	const writers, writes = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers*writes)
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < writes; k++ {
				if err := writeJSON(path, map[string]int{"writer": g, "write": k}); err != nil {
					errs <- err
				}
				b, err := os.ReadFile(path)
				var v map[string]int
				if err == nil {
					err = json.Unmarshal(b, &v)
				}
				if err != nil {
					errs <- err
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	left, _ := os.ReadDir(filepath.Dir(path))
	if len(left) != 1 {
		t.Errorf("target/ holds %d files after the writes, want only run_results.json", len(left))
	}
}
