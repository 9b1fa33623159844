package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/idemc/idemc/compiler/analyze"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/compiler/render"
	"github.com/idemc/idemc/internal/rawfile"
	"github.com/idemc/idemc/internal/valuehash"
	"github.com/idemc/idemc/plan"
)

// The compile cache keeps every model's render and analysis under
// target/, keyed by a hash of everything they are made from: the model's
// text, header and settings, every macro, the vars, the target, the
// sources and the idemc build; the environment variables env_var() read
// are kept with the entry and compared at get. A key that matches gives exactly what a
// render would (a test compares a cached compile with a cold one after
// random edits); anything else, an unreadable file included, is a miss.
// The loader has read every file already, so entries are checked by hash,
// not by file times: a hash cannot be fooled by a clock or a copy.

// cacheFile is the cache's file in Options.Cache.
const cacheFile = "compile_cache.bin"

// cacheFormat changes whenever an entry's meaning does.
const cacheFormat = "idemc-compile-cache/6"

type cacheEntry struct {
	Key         string
	R           render.Cached
	Res         analyze.Result
	Hash        string
	Incremental bool
	// Alt is what the other render of an is_incremental() model read
	// (renderOther): its hash covers that render too, so the names and
	// environment variables it read must still resolve as they did.
	Alt *altReads
}

// altReads are the inputs of the render that does not run.
type altReads struct {
	Refs    []string
	Sources [][2]string
	EnvVars []render.EnvRead
}

// The file's form is cache_codec.go's.

// compileCache is one compile's view of the cache: what was read, and
// the entries to write back.
type compileCache struct {
	env   []byte // hash of what every model's entry depends on
	old   map[string]*cacheEntry
	mu    sync.Mutex
	fresh map[string]*cacheEntry
	dirty bool // an entry was made, or one read is gone
}

// openCache reads the cache of opts.Cache; nil without one, or when the
// inputs cannot be hashed.
func (cc *compilation) openCache() *compileCache {
	if cc.opts.Cache == "" {
		return nil
	}
	env, err := cc.envHash()
	if err != nil {
		return nil
	}
	k := &compileCache{env: env, fresh: make(map[string]*cacheEntry, len(cc.list))}
	old, ok := cc.opts.CacheAhead.take(cc.opts.Cache)
	if !ok {
		old = readCacheFile(cc.opts.Cache)
	}
	k.old = old
	return k
}

// readCacheFile reads the entries of the cache in dir; nil when there is
// none or it cannot be read (every model is a miss).
func readCacheFile(dir string) map[string]*cacheEntry {
	b, err := os.ReadFile(filepath.Join(dir, cacheFile))
	if err != nil {
		return nil
	}
	return readCacheEntries(b)
}

// CacheAhead is a folder's compile cache read ahead of the render
// (ReadCacheAhead; idemc starts it when the load returns, while the load
// cache's decoding no longer needs both CPUs): the file is decoded beside
// the last steps of the load instead of before the render (~25 ms of a
// warm compile of 10,000 models). The first compile
// given it in Options takes its entries; any other reads the file itself,
// so no two compiles share entries. What is read ahead is checked like
// what is read later: every entry by its key.
type CacheAhead struct {
	dir     string
	done    chan struct{}
	entries map[string]*cacheEntry
	taken   atomic.Bool
}

// ReadCacheAhead starts reading the compile cache in dir.
func ReadCacheAhead(dir string) *CacheAhead {
	r := &CacheAhead{dir: dir, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.entries = readCacheFile(dir)
	}()
	return r
}

// take waits for the entries read ahead for dir; false when r is nil,
// was read for another folder or was taken already.
func (r *CacheAhead) take(dir string) (map[string]*cacheEntry, bool) {
	if r == nil || r.dir != dir || !r.taken.CompareAndSwap(false, true) {
		return nil, false
	}
	<-r.done
	return r.entries, true
}

// envHash covers what every model's render and analysis can read besides
// its own file.
func (cc *compilation) envHash() ([]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%v\x00", cacheFormat, buildID(), cc.target, cc.p.SeedSchema, cc.opts.Lineage)
	// What templates read of the project: ref("name", …), target.profile_name
	// and target.threads, var()'s meaning.
	fmt.Fprintf(h, "%s\x00%d\x00%v\x00", cc.p.Name, cc.p.Threads, cc.p.RawVars)
	for _, v := range []any{cc.tgt, cc.p.Sources, cc.p.Vars, cc.opts.Vars} {
		if err := writeJSON(h, v); err != nil {
			return nil, err
		}
	}
	for _, s := range cc.p.Seeds { // where ref() finds a seed with a schema of its own
		if s.Schema != "" {
			fmt.Fprintf(h, "%s\x00%s\x00", s.Name, s.Schema)
		}
	}
	for _, m := range cc.p.Macros {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00", m.Path, len(m.Text), m.Text)
	}
	return h.Sum(nil), nil
}

func writeJSON(h hash.Hash, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h.Write(b)
	h.Write([]byte{0})
	return nil
}

// key is the hash of c's entry; "" when c's settings cannot be hashed.
func (k *compileCache) key(c *compiled) string {
	h := sha256.New()
	h.Write(k.env)
	if c.m.FileSum != (project.Digest{}) {
		// The file's hash, taken at load, covers the body and its line:
		// hashing the body again was half of a warm compile's keys.
		fmt.Fprintf(h, "%s\x00%s\x00%x\x00%v\x00", c.m.Name, c.m.Path, c.m.FileSum[:], c.incremental)
	} else {
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00%s\x00%v\x00", c.m.Name, c.m.Path, c.m.BodyLine, len(c.m.Body), c.m.Body, c.incremental)
	}
	settings, ok := c.m.SettingsHash()
	if !ok {
		return ""
	}
	h.Write(settings[:])
	return hex.EncodeToString(h.Sum(nil))
}

// get fills c from its entry when the key matches and every name the
// render resolved is still declared (a render refusing an unknown name is
// never cached, so this is the check it would have made); it reports a hit.
func (k *compileCache) get(cc *compilation, c *compiled, key string) bool {
	e := k.old[c.m.Path]
	if e == nil || key == "" || e.Key != key {
		return false
	}
	if !k.stillReads(cc, e.R.Refs, e.R.Sources, e.R.EnvVars) ||
		e.Alt != nil && !k.stillReads(cc, e.Alt.Refs, e.Alt.Sources, e.Alt.EnvVars) {
		return false
	}
	c.tpl, c.res, c.hash, c.incremental = e.R.Rendered(), e.Res, e.Hash, e.Incremental
	k.keep(c.m.Path, e, false)
	return true
}

// stillReads reports whether every name a render resolved is still
// declared and every environment variable it read has the same value.
func (k *compileCache) stillReads(cc *compilation, refs []string, sources [][2]string, env []render.EnvRead) bool {
	for _, r := range refs {
		if !cc.rctx.Known(r) {
			return false
		}
	}
	for _, s := range sources {
		if !cc.rctx.KnownSource(s[0], s[1]) {
			return false
		}
	}
	for _, v := range env { // env_var() values are inputs too
		if now, set := cc.rctx.Getenv(v.Name); now != v.Value || set != v.Set {
			return false
		}
	}
	return true
}

// put records c's render and analysis; alt is the other render of an
// is_incremental() model (nil for most).
func (k *compileCache) put(c *compiled, key string, alt *render.Rendered) {
	// A render holding a secret env var's value is not written to disk.
	if key == "" || c.tpl.UsesSecret || alt != nil && alt.UsesSecret {
		return
	}
	e := &cacheEntry{Key: key, R: c.tpl.Cache(), Res: c.res, Hash: c.hash, Incremental: c.incremental}
	if alt != nil {
		e.Alt = &altReads{Refs: alt.Refs, Sources: alt.Sources, EnvVars: alt.EnvVars}
	}
	k.keep(c.m.Path, e, true)
}

func (k *compileCache) keep(path string, e *cacheEntry, made bool) {
	k.mu.Lock()
	k.fresh[path] = e
	k.dirty = k.dirty || made
	k.mu.Unlock()
}

// save writes the entries of this compile, when they differ from what was
// read: written aside and renamed, so a concurrent compile reads the old
// file or the new one, never half of one. A cache that cannot be written
// costs the next compile time, not correctness.
func (k *compileCache) save(dir string) {
	if !k.dirty && len(k.fresh) == len(k.old) {
		return
	}
	// Encoded straight to the file: no buffer of the whole cache (6.5 MB
	// at 10,000 models) while the planning that runs beside it allocates.
	_ = rawfile.WriteAtomicStream(filepath.Join(dir, cacheFile), func(w io.Writer) error {
		return writeCacheEntries(w, k.fresh)
	})
}

// waitSaved returns once the compile cache renderAll started writing is
// written.
func (cc *compilation) waitSaved() {
	if cc.saved != nil {
		<-cc.saved
	}
}

// buildID names this idemc build (the load cache's too).
var buildID = project.BuildID

// unitKey is the hash of everything a unit's file is made of: the
// compile's environment (target, vars, macros, the idemc build: what the
// dialect and the render read), the unit's id and kind, and its write as
// planned, SELECT included (valuehash: every field, so that a field added
// to plan.Write is covered). "" without Options.Reuse or a cache, or when
// the write cannot be encoded: the recipe is built.
func (cc *compilation) unitKey(u *plan.Unit, k *unitKeyer) string {
	if cc.opts.Reuse == nil || cc.keyEnv == nil {
		return ""
	}
	w := *u.Write
	w.Select = "" // hashed as it is, below
	b := append(k.buf[:0], cc.keyEnv...)
	b = fmt.Appendf(b, "%s\x00%s\x00%s\x00%s\x00%d\x00", u.ID, u.Model, u.Partition, u.Kind(), len(u.Write.Select))
	b = append(b, u.Write.Select...)
	b, err := valuehash.Append(b, &w)
	if err != nil {
		return ""
	}
	k.buf = b
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// unitKeyer is one worker's scratch space for unitKey: the text hashed
// is made in one buffer, reused (a hash, a copy of the SELECT and the
// write's encoding allocated per unit were a sixth of a warm compile's
// keys).
type unitKeyer struct {
	buf []byte
}
