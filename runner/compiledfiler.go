package runner

import (
	"bytes"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/idemc/idemc/plan"
)

// A filer formats and hashes units' files against target/compiled's
// index, spread over the CPUs, and hands the changed ones to one writer,
// which writes them one at a time while the others are formatted: creating
// folders and files under one parent serializes in the file system
// (writing with 4 workers on a fresh target/ was slower: 32 s against
// 26 s, medians of 3 on this machine's busy disk). A file's text is kept
// only until it is written: idemc compile files each unit as soon as the
// compiler has its recipe (CompiledIndex.Filed), so that neither the
// recipes nor the files of 10,000 units are held at once (~50 MB each of a
// fresh compile's peak).
type filer struct {
	dir     string
	old     map[string]compiledEntry
	start   time.Time // before the first write: later folder times are racy
	pending chan filedText
	written chan struct{}
	scratch sync.Pool // *bytes.Buffer, a unit's text while it is hashed

	made map[string]bool // folders the writer created (the writer's own until it is done)

	mu   sync.Mutex
	done map[*plan.Unit]filedUnit
	werr error // the writer's first error
}

// filedText is a changed file on its way to the writer.
type filedText struct {
	u    *plan.Unit
	e    compiledEntry
	text []byte
}

// filedUnit is a unit's entry for the index, and whether its file was
// (re)written.
type filedUnit struct {
	e       compiledEntry
	changed bool
}

func newFiler(dir string, old map[string]compiledEntry) *filer {
	f := &filer{dir: dir, old: old, start: time.Now(), pending: make(chan filedText, 64),
		written: make(chan struct{}), made: map[string]bool{}, done: make(map[*plan.Unit]filedUnit, len(old))}
	f.scratch.New = func() any { return new(bytes.Buffer) }
	go f.write()
	return f
}

// write is the writer: one file at a time, in the order they come.
func (f *filer) write() {
	defer close(f.written)
	var buf []byte
	for t := range f.pending {
		f.mu.Lock()
		failed := f.werr != nil
		f.mu.Unlock()
		if failed {
			continue // drain: the formatting workers must not block
		}
		e, err := writeUnitSQL(f.dir, t.u, &buf, t.e, t.text, f.made)
		f.mu.Lock()
		f.done[t.u] = filedUnit{e: e, changed: true}
		if f.werr == nil {
			f.werr = err
		}
		f.mu.Unlock()
	}
}

// file formats u's file and hashes it; a file the index still describes
// is left alone, a changed one goes to the writer.
func (f *filer) file(u *plan.Unit) {
	b := f.scratch.Get().(*bytes.Buffer)
	defer f.scratch.Put(b)
	e, text, ok := unitEntry(f.dir, u, b, f.old[filepath.ToSlash(unitFile(u))])
	f.mu.Lock()
	f.done[u] = filedUnit{e: e, changed: !ok}
	f.mu.Unlock()
	if !ok {
		f.pending <- filedText{u, e, bytes.Clone(text)}
	}
}

// finish files the units not filed yet, waits for the writer and returns
// its first error. A unit whose file Reuse found is recorded as the index
// has it, without a worker.
func (f *filer) finish(units []*plan.Unit) error {
	var rest []*plan.Unit
	f.mu.Lock()
	for _, u := range units {
		if _, ok := f.done[u]; ok {
			continue
		}
		if u.Steps == nil && u.Reused > 0 {
			f.done[u] = filedUnit{e: f.old[filepath.ToSlash(unitFile(u))]}
			continue
		}
		rest = append(rest, u)
	}
	f.mu.Unlock()
	each(len(rest), runtime.GOMAXPROCS(0), func(i int) { f.file(rest[i]) })
	close(f.pending)
	<-f.written
	return f.werr
}

// index is the index of units' files after finish; the folders of the
// files written are taken out of known (their times changed).
func (f *filer) index(units []*plan.Unit, known map[string]int64) map[string]compiledEntry {
	index := make(map[string]compiledEntry, len(units))
	for _, u := range units {
		fu := f.done[u]
		if fu.changed {
			delete(known, filepath.ToSlash(filepath.Dir(unitFile(u))))
		}
		if fu.e.SHA != "" {
			index[filepath.ToSlash(unitFile(u))] = fu.e
		}
	}
	return index
}

// each calls fn(i) for i in [0, n) on that many workers.
func each(n, workers int, fn func(i int)) {
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
			for i := range next {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
