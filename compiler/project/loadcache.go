package project

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/idemc/idemc/internal/rawfile"
)

// The load cache keeps every model file's parsed settings and body under
// target/, so that a load reads a file and decodes its TOML header only
// when the file changed. A file is trusted by its stat (size, modification
// and change times, inode, mode) only when its times were older than the
// load that recorded it by more than racyWindow; a file as recent as that
// could be rewritten within the file system's timestamp granularity with
// the same size and times, so it is read and compared by hash (git's
// "racy index" problem and remedy). Every entry depends on the project
// file's text too (its [models] layers), the cache format and the idemc
// build: when these change, every entry is a miss.
//
// Only models are cached; a new kind of node read from its own files
// (seeds, macros, tests are read afresh: they are few and cheap) would add
// its entries here beside models, with what it depends on in env.

const loadCacheFile = "load_cache.bin"

// loadCacheFormat changes whenever an entry's meaning does.
const loadCacheFormat = "idemc-load-cache/10"

// racyWindow: a file modified this recently before a load is checked by
// hash on the next load, not by stat.
const racyWindow = 2 * time.Second

// fileStat is what a file's stat must still say for its entry to be used
// without reading the file.
type fileStat struct {
	Size, MTime, CTime, Ino int64
	Mode                    uint32
}

type modelEntry struct {
	Stat  fileStat
	Sum   Digest // of the file's bytes
	Racy  bool   // recorded too soon after the file changed: check Sum
	Model *Model
}

// loadCache is one load's view of the cache.
type loadCache struct {
	dir   string
	env   string
	start time.Time // before any file was looked at
	old   map[string]*modelEntry
	mu    sync.Mutex
	fresh map[string]*modelEntry
	dirty bool
	// reads and parses count files read and headers parsed (tests).
	reads, parses int
}

// openLoadCache reads the cache in dir for a project file of this text;
// nil without a dir.
func openLoadCache(dir, projectText string, start time.Time) *loadCache {
	if dir == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(projectText))
	k := &loadCache{dir: dir, env: fmt.Sprintf("%x|%s", sum, BuildID()), start: start, fresh: map[string]*modelEntry{}}
	b, err := os.ReadFile(filepath.Join(dir, loadCacheFile))
	if err != nil {
		return k
	}
	k.old = decodeShards(b, loadCacheFormat, k.env) // the codec keeps empty maps empty
	return k
}

// statOf is the fileStat of fi.
func statOf(fi rawfile.Info) fileStat {
	return fileStat{Size: fi.Size, MTime: fi.MTime.UnixNano(), Mode: uint32(fi.Mode), CTime: fi.CTime, Ino: fi.Ino}
}

// racy reports whether a file of this stat could still change unseen by
// its stat, given when the load began.
func (k *loadCache) racy(s fileStat) bool {
	limit := k.start.Add(-racyWindow).UnixNano()
	return s.MTime >= limit || s.CTime >= limit
}

// byStat returns the model of rel when its stat is the one recorded and
// was not racy: the file need not be read.
func (k *loadCache) byStat(rel string, s fileStat) (*Model, [sha256.Size]byte) {
	if k == nil {
		return nil, [sha256.Size]byte{}
	}
	e := k.old[rel]
	if e == nil || e.Racy || e.Stat != s {
		return nil, [sha256.Size]byte{}
	}
	k.keep(rel, &modelEntry{Stat: s, Sum: e.Sum, Racy: k.racy(s), Model: e.Model})
	return e.Model, e.Sum
}

// byHash returns the model of rel when the file's bytes are the ones
// recorded (its stat changed, or was racy).
func (k *loadCache) byHash(rel string, s fileStat, sum [sha256.Size]byte) *Model {
	if k == nil {
		return nil
	}
	k.count(&k.reads)
	e := k.old[rel]
	if e == nil || e.Sum != sum {
		k.count(&k.parses)
		return nil
	}
	k.keep(rel, &modelEntry{Stat: s, Sum: sum, Racy: k.racy(s), Model: e.Model})
	return e.Model
}

// put records a model just parsed from a file of this stat and hash, when
// the cache can give it back exactly.
func (k *loadCache) put(rel string, s fileStat, sum [sha256.Size]byte, m *Model) {
	if k == nil {
		return
	}
	if !cacheable(m) {
		return
	}
	k.keep(rel, &modelEntry{Stat: s, Sum: sum, Racy: k.racy(s), Model: m})
}

func (k *loadCache) count(n *int) {
	k.mu.Lock()
	*n++
	k.mu.Unlock()
}

func (k *loadCache) keep(rel string, e *modelEntry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fresh[rel] = e
	if o := k.old[rel]; o == nil || o.Stat != e.Stat || o.Racy != e.Racy || o.Sum != e.Sum {
		k.dirty = true
	}
}

// save writes the entries of this load when they differ from what was
// read, written aside and renamed (a concurrent load reads the old file or
// the new one), in shards (loadcache_shards.go). A cache that cannot be
// written costs time, not correctness.
func (k *loadCache) save() {
	if k == nil || !k.dirty && len(k.fresh) == len(k.old) {
		return
	}
	_ = rawfile.WriteAtomicStream(filepath.Join(k.dir, loadCacheFile), func(w io.Writer) error {
		return encodeShards(w, loadCacheFormat, k.env, k.fresh)
	})
}

// BuildID names this idemc build: its module version and VCS revision, and
// the executable's size and time (a rebuild without a commit changes them).
// Caches of what the build computes are keyed by it.
var BuildID = sync.OnceValue(func() string {
	var b strings.Builder
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.WriteString(bi.Main.Version)
		for _, s := range bi.Settings {
			if strings.HasPrefix(s.Key, "vcs.") {
				b.WriteString("|" + s.Key + "=" + s.Value)
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			fmt.Fprintf(&b, "|%s|%d|%d", exe, st.Size(), st.ModTime().UnixNano())
		}
	}
	return b.String()
})
