package runner

import (
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/idemc/idemc/plan"
)

// compiledDir is what the manifest keeps of a model's folder under
// target/compiled: its modification time when it held exactly the files
// the index lists under it. Adding, removing or renaming a file changes a
// folder's time, so a folder whose time is still that one holds those
// files and no other: it need not be listed (~8 system calls a folder).
// A folder modified less than racyWindow before the write that would
// record it is not recorded: something could still change it unseen
// within the same timestamp (git's racy-index rule).
type compiledDir struct {
	MTime int64 `json:"mtime_ns"`
}

// knownDirs returns the model folders (by name) that need not be listed:
// the plan wants exactly the files the index lists in them, and their
// time is the one recorded.
func knownDirs(want map[string]bool, old map[string]compiledEntry, oldDirs map[string]compiledDir) map[string]int64 {
	inIndex := map[string]int{}
	for f := range old {
		inIndex[path.Dir(f)]++
	}
	wanted := map[string]int{}
	for f := range want {
		if d := filepath.Dir(f); d != "." {
			if _, ok := old[filepath.ToSlash(f)]; !ok {
				wanted[filepath.ToSlash(d)] = -1 << 30 // a file the index does not list
			}
			wanted[filepath.ToSlash(d)]++
		}
	}
	known := map[string]int64{}
	for d, n := range wanted {
		if r, ok := oldDirs[d]; ok && n == inIndex[d] {
			known[d] = r.MTime
		}
	}
	return known
}

// removeUnwanted removes what the plan no longer has from dir: model
// folders it does not want, and files it does not want in the others.
// A folder in known whose time is the recorded one is not listed; it
// returns those folders.
func removeUnwanted(dir string, want map[string]bool, known map[string]int64) (map[string]int64, error) {
	models, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	same := make(map[string]int64, len(known))
	for _, m := range models {
		if isTemp(m.Name()) {
			continue
		}
		if !want[m.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, m.Name())); err != nil {
				return nil, err
			}
			continue
		}
		if !m.IsDir() {
			continue
		}
		if t, ok := known[filepath.ToSlash(m.Name())]; ok {
			if st, err := os.Stat(filepath.Join(dir, m.Name())); err == nil && st.ModTime().UnixNano() == t {
				same[filepath.ToSlash(m.Name())] = t
				continue
			}
		}
		files, err := os.ReadDir(filepath.Join(dir, m.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if rel := filepath.Join(m.Name(), f.Name()); !want[rel] && !isTemp(f.Name()) {
				if err := os.RemoveAll(filepath.Join(dir, rel)); err != nil {
					return nil, err
				}
			}
		}
	}
	return same, nil
}

// updateUnits writes the files of units that changed and returns the
// index. Formatting and hashing every unit's file to check it against the
// index is spread over the CPUs; the writes are made one at a time, in
// plan order: creating folders and files under one parent serializes in
// the file system (writing with 4 workers on a fresh target/ was slower:
// 32 s against 26 s, medians of 3 on this machine's busy disk).
func updateUnits(dir string, units []*plan.Unit, old map[string]compiledEntry, known map[string]int64) (map[string]compiledEntry, error) {
	type result struct {
		e    compiledEntry
		text string
		ok   bool
		err  error
	}
	res := make([]result, len(units))
	each(len(units), runtime.GOMAXPROCS(0), func(i int, buf *[]byte) {
		r := &res[i]
		r.e, r.text, r.ok = unitEntry(dir, units[i], buf, old[filepath.ToSlash(unitFile(units[i]))])
		if r.ok {
			r.text = "" // not needed: let it go
		}
	})
	var changed []int
	for i := range res {
		if !res[i].ok {
			changed = append(changed, i)
			delete(known, filepath.ToSlash(filepath.Dir(unitFile(units[i])))) // its time changes
		}
	}
	var buf []byte
	for _, i := range changed {
		res[i].e, res[i].err = writeUnitSQL(dir, units[i], &buf, res[i].e, res[i].text)
		if res[i].err != nil {
			return nil, res[i].err
		}
	}
	index := make(map[string]compiledEntry, len(units))
	for i, u := range units {
		if res[i].err != nil {
			return nil, res[i].err
		}
		if res[i].e.SHA != "" {
			index[filepath.ToSlash(unitFile(u))] = res[i].e
		}
	}
	return index, nil
}

// each calls fn(i) for i in [0, n) on that many workers, each with its own
// scratch buffer.
func each(n, workers int, fn func(i int, buf *[]byte)) {
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < workers && w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for i := range next {
				fn(i, &buf)
			}
		}()
	}
	wg.Wait()
}

// unitTextSize is about the length of a unit's file, so that formatting it
// grows its buffer once, not a doubling at a time.
func unitTextSize(u *plan.Unit) int {
	n := 256
	for i := range u.Steps {
		n += 128 + len(u.Steps[i].SQL) + len(u.Steps[i].Count) + len(u.Steps[i].Comment)
	}
	return n
}

// recordDirs returns the folders to record in the manifest: those of the
// index's files last modified at least racyWindow before this write began
// (listed or known, they held those files when looked at). A known folder
// not written into keeps its time; another is looked at again. (A folder
// that also holds a file the index does not list is never known: see
// knownDirs.)
func recordDirs(dir string, index map[string]compiledEntry, known map[string]int64, start time.Time) map[string]compiledDir {
	files := map[string]bool{}
	for f := range index {
		files[path.Dir(f)] = true
	}
	out := make(map[string]compiledDir, len(files))
	limit := start.Add(-racyWindow).UnixNano()
	for d := range files {
		if t, ok := known[d]; ok && t < limit {
			out[d] = compiledDir{MTime: t}
			continue
		}
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(d)))
		if err != nil {
			continue
		}
		if t := st.ModTime().UnixNano(); t < limit {
			out[d] = compiledDir{MTime: t}
		}
	}
	return out
}
