package runner

import (
	"os"
	"path"
	"path/filepath"
	"runtime"
	"time"

	"github.com/idemc/idemc/internal/rawfile"
)

// compiledDir is what the index keeps of a model's folder under
// target/compiled: its modification time when it held exactly the files
// the index lists under it. Adding, removing or renaming a file changes a
// folder's time, so a folder whose time is still that one holds those
// files and no other: it need not be listed (~8 system calls a folder).
// A folder modified less than racyWindow before the write that would
// record it is not recorded: something could still change it unseen
// within the same timestamp (git's racy-index rule).
type compiledDir struct {
	MTime int64
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
// A folder in known whose time is the recorded one is not listed, nor one
// this compile made (every file in it is one it wrote; made holds their
// paths); it returns the known ones.
func removeUnwanted(d *rawfile.Dir, want map[string]bool, known map[string]int64, made map[string]bool) (map[string]int64, error) {
	dir := d.Path()
	models, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	// The known folders' times are read on every CPU: one stat each, most
	// of a warm compile's writing at 10,000 models.
	unchanged := make([]bool, len(models))
	each(len(models), runtime.GOMAXPROCS(0), func(i int) {
		name := models[i].Name()
		if t, ok := known[filepath.ToSlash(name)]; ok && want[name] && models[i].IsDir() && !made[filepath.Join(dir, name)] {
			st, err := d.Stat(name)
			unchanged[i] = err == nil && st.MTime.UnixNano() == t
		}
	})
	same := make(map[string]int64, len(known))
	for i, m := range models {
		if isTemp(m.Name()) {
			continue
		}
		if !want[m.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, m.Name())); err != nil {
				return nil, err
			}
			continue
		}
		if !m.IsDir() || made[filepath.Join(dir, m.Name())] {
			continue
		}
		if unchanged[i] {
			same[filepath.ToSlash(m.Name())] = known[filepath.ToSlash(m.Name())]
			continue
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

// recordDirs returns the folders to record in the index: those of the
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
