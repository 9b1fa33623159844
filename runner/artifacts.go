package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/internal/rawfile"
	"github.com/idemc/idemc/plan"
)

// Artifacts under target/: compiled SQL, the manifest and the run results.

// unitFile is a unit's file name under target/compiled.
func unitFile(u *plan.Unit) string {
	name := u.Partition
	if name == "" {
		name = u.Model
	}
	return filepath.Join(u.Model, name+".sql")
}

// compiledPath is where a unit's SQL is written, relative to the project.
func compiledPath(u *plan.Unit) string {
	return filepath.Join("target", "compiled", unitFile(u))
}

// recordRecipe has a unit's recipe, as it is about to run, written to
// target/compiled (unless the file already holds it): the file is what
// runs, but for the slots the runner fills (plan.Step.Slots). The text is
// made here; the file is written by the run's compiledWriter, off the
// unit's path. A file that cannot be written does not fail the unit; its
// data is not at stake.
func (r *run) recordRecipe(u *plan.Unit, w *plan.Write, steps []plan.Step) {
	cu := *u
	cu.Write, cu.Steps = w, steps
	var b strings.Builder
	plan.FormatUnit(&b, &cu, true)
	f := compiledFile{path: filepath.Join(r.p.Root, "target", "compiled", unitFile(u)), text: strings.TrimLeft(b.String(), "\n")}
	if r.files == nil {
		var buf []byte
		f.write(&buf, map[string]bool{})
		return
	}
	r.files.ch <- f
}

// compiledFile is one unit's file under target/compiled.
type compiledFile struct{ path, text string }

// write replaces the file unless it holds the text already; buf is scratch
// space for reading it, made the folders this writer created.
func (f compiledFile) write(buf *[]byte, made map[string]bool) {
	_, _ = replaceFile(f.path, []byte(f.text), buf, made)
}

// compiledWriter writes the units' files while they run: creating a file
// costs ~1 ms on some file systems, as much as a unit's statements.
type compiledWriter struct {
	ch   chan compiledFile
	done chan struct{}
}

func startCompiledWriter() *compiledWriter {
	w := &compiledWriter{ch: make(chan compiledFile, 256), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		var buf []byte
		made := map[string]bool{}
		for f := range w.ch {
			f.write(&buf, made)
		}
	}()
	return w
}

// flush waits until every file sent is written.
func (w *compiledWriter) flush() {
	close(w.ch)
	<-w.done
}

// writeAtomic replaces the file at path with data: written to a temporary
// file of this process's own beside it, then renamed over it, so that
// concurrent runs sharing target/ never write into, rename or leave each
// other's half-written files (a shared "path.tmp" made one run's rename
// fail after all its units had succeeded).
func writeAtomic(path string, data []byte) error { return rawfile.WriteAtomic(path, data) }

// tmpSuffix ends writeAtomic's temporary names; WriteCompiled leaves such
// files alone (another run is about to rename one).
const tmpSuffix = rawfile.TempSuffix

func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, tmpSuffix)
}

// WriteCompiled makes target/compiled hold the plan's SQL, one file per
// unit, and writes target/manifest.json. It updates the folder in place:
// a file whose text is unchanged is not rewritten, a changed one is
// replaced atomically (write aside, rename), and files and folders of units
// no longer in the plan are removed; the index (compiledIndexFile) and the
// manifest are written last. A model's folder whose time says nothing was
// added or removed since the index recorded it is not listed
// (compiledfiles.go).
func WriteCompiled(root string, pl *plan.Plan, d adapters.Dialect) error {
	return OpenCompiled(root).Write(pl, d)
}

// CompiledIndex is target/compiled's index as the last compile recorded
// it, read once by idemc compile for the compiler (Reuse) and for writing.
type CompiledIndex struct {
	root     string
	read     chan struct{} // closed once files and dirs are read
	files    map[string]compiledEntry
	dirs     map[string]compiledDir
	manifest manifestEntry
	dir      *rawfile.Dir // target/compiled, open while the index has files in it
	once     sync.Once
	filer    *filer // started by Filed
}

// OpenCompiled starts reading the index of the project's target/compiled
// (empty when there is none): idemc compile opens it before the project
// loads, and its methods wait for it.
func OpenCompiled(root string) *CompiledIndex {
	x := &CompiledIndex{root: root, read: make(chan struct{})}
	go func() {
		defer close(x.read)
		x.files, x.dirs, x.manifest = readCompiledIndexes(root)
		if len(x.files) > 0 {
			x.dir, _ = rawfile.OpenDir(filepath.Join(root, "target", "compiled"))
		}
	}()
	return x
}

// Reuse is compiler.Options.Reuse: a unit whose file the index records
// with the unit's key, and whose size and modification time are still the
// recorded ones, keeps its file; it returns the recorded number of steps
// (0: build the recipe). A recorded time is never a racy one (racyWindow).
func (x *CompiledIndex) Reuse(u *plan.Unit) int {
	<-x.read
	f := unitFile(u)
	e, ok := x.files[filepath.ToSlash(f)]
	if !ok || e.Key == "" || e.Key != u.Key || e.Steps == 0 || x.dir == nil {
		return 0
	}
	st, err := x.dir.Stat(f)
	if err != nil || !st.Mode.IsRegular() || st.Size != e.Size || st.MTime.UnixNano() != e.MTime {
		return 0
	}
	return e.Steps
}

// Filed is compiler.Options.Filed: it formats and hashes the unit's file
// as soon as the compiler has its recipe, and hands a changed one to the
// index's writer (filer); the compile may then drop the recipe. Write
// files the units not filed yet and waits for the writer.
func (x *CompiledIndex) Filed(u *plan.Unit) bool {
	<-x.read
	x.once.Do(func() { x.filer = newFiler(filepath.Join(x.root, "target", "compiled"), x.files) })
	x.filer.file(u)
	return true
}

// Write writes the plan's files under target/compiled, those that changed
// only, then their index and the manifest.
func (x *CompiledIndex) Write(pl *plan.Plan, d adapters.Dialect) error {
	<-x.read
	root := x.root
	dir := filepath.Join(root, "target", "compiled")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	_ = os.RemoveAll(filepath.Join(root, "target", "compiled.tmp")) // left by older versions
	var units []*plan.Unit
	want := map[string]bool{} // relative paths of the plan's files and folders
	for _, u := range pl.Units {
		if u.Seed {
			continue
		}
		units = append(units, u)
		f := unitFile(u)
		want[f] = true
		want[filepath.Dir(f)] = true
	}
	// The manifest (~40 ms to encode at 10,000 models) is made beside the
	// folders' checks below, which wait on the file system.
	type manifestDone struct {
		e   manifestEntry
		err error
	}
	manifest := make(chan manifestDone, 1)
	go func() {
		e, err := updateManifest(filepath.Join(root, "target", manifestFile), manifestOf(pl, d), x.manifest)
		manifest <- manifestDone{e, err}
	}()
	x.once.Do(func() { x.filer = newFiler(dir, x.files) })
	f := x.filer
	if err := f.finish(units); err != nil {
		return err
	}
	cd := x.dir
	if cd == nil {
		var err error
		if cd, err = rawfile.OpenDir(dir); err != nil {
			return err
		}
	}
	defer func() { cd.Close(); x.dir = nil }()
	// After the writes: a folder written to is listed (its time changed),
	// so its files no longer wanted go too.
	known, err := removeUnwanted(cd, want, knownDirs(want, x.files, x.dirs), f.made)
	if err != nil {
		return err
	}
	index := f.index(units, known)
	dirs := recordDirs(dir, index, known, f.start)
	m := <-manifest
	if m.err != nil {
		return m.err
	}
	if maps.Equal(index, x.files) && maps.Equal(dirs, x.dirs) && m.e == x.manifest {
		return nil // the index says it all already
	}
	return writeCompiledIndex(root, compiledIndex{Format: compiledIndexFormat, Files: index, Dirs: dirs, Manifest: m.e})
}

// compiledEntry is what the index keeps of one file under
// target/compiled, so that the next compile need not read it back: the
// hash of its text, its size and modification time, and the key of the
// unit it was written for with its number of steps (plan.Unit.Key), so
// that the next compile need not build the recipe again either.
type compiledEntry struct {
	SHA   string
	Size  int64
	MTime int64
	Key   string
	Steps int
}

// racyWindow: a file modified this recently is not recorded in the index.
// Another write within the file system's timestamp granularity could leave
// the same size and time with other text; a file as old as this cannot be
// rewritten unseen (the problem and the remedy of git's racy index).
const racyWindow = 2 * time.Second

// unitEntry formats a unit's file into b and hashes it; ok when the index
// entry still describes the file (same hash and size, and the file's size
// and time are the recorded ones): the file need not be read or written.
// text is the file's text in b, valid until b's next use.
func unitEntry(dir string, u *plan.Unit, b *bytes.Buffer, old compiledEntry) (e compiledEntry, text []byte, ok bool) {
	if u.Steps == nil && u.Reused > 0 {
		return old, nil, true // Reuse checked the file
	}
	b.Reset()
	plan.FormatUnit(b, u, true)
	text = bytes.TrimLeft(b.Bytes(), "\n")
	sum := sha256.Sum256(text)
	e = compiledEntry{SHA: hex.EncodeToString(sum[:16]), Size: int64(len(text)), Key: u.Key, Steps: len(u.Steps)}
	if old.SHA == e.SHA && old.Size == e.Size {
		st, err := os.Stat(filepath.Join(dir, unitFile(u)))
		if err == nil && st.Mode().IsRegular() && st.Size() == old.Size && st.ModTime().UnixNano() == old.MTime {
			e.MTime = old.MTime
			return e, text, true
		}
	}
	return e, text, false
}

// writeUnitSQL writes a unit's file unless it holds text already, and
// returns its index entry (none for a file just written: its time is
// racy).
func writeUnitSQL(dir string, u *plan.Unit, buf *[]byte, e compiledEntry, text []byte, made map[string]bool) (compiledEntry, error) {
	path := filepath.Join(dir, unitFile(u))
	held, err := replaceFile(path, text, buf, made)
	if err != nil || !held {
		return compiledEntry{}, err
	}
	return recordedEntry(path, e), nil
}

// replaceFile makes path hold text unless it holds it already, and reports
// whether it did. The folder is made first: made holds the folders this
// writer created, every file in which is one it wrote, so none is looked
// for before it is written (a lookup and a read saved per new file).
func replaceFile(path string, text []byte, buf *[]byte, made map[string]bool) (held bool, err error) {
	folder := filepath.Dir(path)
	if !made[folder] {
		switch err := os.Mkdir(folder, 0o755); {
		case err == nil:
			made[folder] = true
		case os.IsExist(err):
			if same, _ := holds(path, text, buf); same {
				return true, nil
			}
		case os.IsNotExist(err): // target/compiled itself is missing
			if err := os.MkdirAll(folder, 0o755); err != nil {
				return false, err
			}
			made[folder] = true
		default:
			return false, err
		}
	}
	return false, writeAtomic(path, text)
}

// recordedEntry is e with the time of the file at path, which holds e's
// text; none while that time is racy.
func recordedEntry(path string, e compiledEntry) compiledEntry {
	st, err := os.Stat(path)
	if err != nil || time.Since(st.ModTime()) < racyWindow {
		return compiledEntry{}
	}
	e.MTime = st.ModTime().UnixNano()
	return e
}

// readCompiledIndex reads the files' index of target/compiled.
func readCompiledIndex(root string) map[string]compiledEntry {
	files, _, _ := readCompiledIndexes(root)
	return files
}

// compiledIndexFile is target/compiled's index (compiledIndex), beside the
// folder: gob, read whole by every compile. It was the manifest's
// "compiled" and "compiled_dirs" fields: json of 10,000 entries cost a
// warm compile ~40 ms to read and ~35 ms to write.
const compiledIndexFile = "compiled_index.gob"

// compiledIndexFormat changes whenever the index's meaning does.
const compiledIndexFormat = "idemc-compiled-index/2"

// compiledIndex is what compiledIndexFile holds: each file's entry by its
// slash-separated path under target/compiled, and each recorded folder's
// time (compiledfiles.go).
type compiledIndex struct {
	Format   string
	Files    map[string]compiledEntry
	Dirs     map[string]compiledDir
	Manifest manifestEntry
}

// readCompiledIndexes reads the index of target/compiled; nil when there
// is none or it cannot be read (then every file is looked at).
func readCompiledIndexes(root string) (files map[string]compiledEntry, dirs map[string]compiledDir, manifest manifestEntry) {
	b, err := os.ReadFile(filepath.Join(root, "target", compiledIndexFile))
	if err != nil {
		return nil, nil, manifestEntry{}
	}
	var x compiledIndex
	if gob.NewDecoder(bytes.NewReader(b)).Decode(&x) != nil || x.Format != compiledIndexFormat {
		return nil, nil, manifestEntry{}
	}
	return x.Files, x.Dirs, x.Manifest
}

// writeCompiledIndex replaces the index, after the files it describes
// were written.
func writeCompiledIndex(root string, x compiledIndex) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(x); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(root, "target", compiledIndexFile), buf.Bytes())
}

// holds reports whether the file at path holds text (exists: it could be
// opened); buf is scratch space for reading it.
func holds(path string, text []byte, buf *[]byte) (same, exists bool) {
	return rawfile.Equal(path, text, buf)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}
