package project

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/idemc/idemc/compiler/analyze"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/internal/rawfile"
)

// folderLayer is a [models."staging/*"] table.
type folderLayer struct {
	pattern string
	layer
}

// loadFiles reads the model, macro, test and seed files; the cache
// openCache returns once the model files are found, when not nil, gives
// back the models of files unchanged since it was written. It returns
// that cache.
func (p *Project) loadFiles(base *layer, folders []folderLayer, openCache func() *loadCache, errs *diag.List) *loadCache {
	walk := func(dir, ext string, fn func(rel string, text string)) { p.walk(dir, ext, errs, fn) }
	var files []modelFile
	p.walkPaths("models", ".sql", errs, func(rel, full string) error {
		files = append(files, modelFile{rel: rel, full: full})
		return nil
	})
	cache := openCache()
	byName := p.parseModels(files, base, folders, cache, errs)
	walk("macros", ".sql", func(rel, text string) { p.Macros = append(p.Macros, File{Path: rel, Text: text}) })
	walk("tests", ".sql", func(rel, text string) { p.Tests = append(p.Tests, File{Path: rel, Text: text}) })
	walk("seeds", ".csv", func(rel, text string) {
		name := strings.TrimSuffix(path.Base(rel), ".csv")
		if prev, ok := byName[name]; ok {
			errs.Add(rel, 1, 0, "seed %q has the same name as model %s; rename one of them", name, prev.Path)
			return
		}
		p.Seeds = append(p.Seeds, p.loadSeed(rel, name, []byte(text), errs))
	})
	p.checkSeedTables(errs)
	p.checkHTTPNames(errs)
	rels := make([]string, len(files))
	for i, f := range files {
		rels[i] = f.rel
	}
	p.checkReads(rels, true, errs) // the expressions: loadModel
	sort.Slice(p.Models, func(i, j int) bool { return p.Models[i].Name < p.Models[j].Name })
	sort.Slice(p.Seeds, func(i, j int) bool { return p.Seeds[i].Name < p.Seeds[j].Name })
	sort.Slice(p.Macros, func(i, j int) bool { return p.Macros[i].Path < p.Macros[j].Path })
	sort.Slice(p.Tests, func(i, j int) bool { return p.Tests[i].Path < p.Tests[j].Path })
	return cache
}

// modelFile is a models/**/*.sql file found by the walk.
type modelFile struct {
	rel, full string
}

// parseModels reads and parses the model files and returns the models by
// name. Files are read and their headers parsed in parallel (TOML
// decoding is most of loading); results are then taken in walk order, so
// errors stay deterministic.
func (p *Project) parseModels(files []modelFile, base *layer, folders []folderLayer, cache *loadCache, errs *diag.List) map[string]*Model {
	models := make([]*Model, len(files))
	merrs := make([]error, len(files))
	root, err := rawfile.OpenDir(p.Root) // nil when it cannot be: each file by its path
	if err == nil {
		defer root.Close()
	}
	var wg sync.WaitGroup
	next := make(chan int, len(files))
	for i := range files {
		next <- i
	}
	close(next)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var parser *analyze.Parser // the worker's, for checks' expressions
			for i := range next {
				models[i], merrs[i] = loadModel(root, files[i], base, folders, cache, &parser)
			}
		}()
	}
	wg.Wait()
	byName := map[string]*Model{}
	for i, m := range models {
		errs.Append(merrs[i])
		if m == nil {
			continue
		}
		if prev, ok := byName[m.Name]; ok {
			errs.Add(files[i].rel, 1, 0, "duplicate model name %q: also defined in %s; rename one of the files", m.Name, prev.Path)
			continue
		}
		byName[m.Name] = m
		p.Models = append(p.Models, m)
	}
	return byName
}

// loadModel is one model file's model: the cache's when the file is
// unchanged (by stat, or by hash when its stat changed or was racy),
// parsed otherwise, its checks' expressions checked with *parser (a
// cached model's were: only a model that loaded well is cached).
func loadModel(root *rawfile.Dir, f modelFile, base *layer, folders []folderLayer, cache *loadCache, parser **analyze.Parser) (*Model, error) {
	fi, err := modelFileStat(root, f)
	if err != nil {
		return nil, err
	}
	st := statOf(fi)
	if m, sum := cache.byStat(f.rel, st); m != nil {
		return withSum(m, sum), nil
	}
	b, err := rawfile.ReadFile(f.full, fi.Size)
	if err != nil {
		return nil, diag.List{diag.Errorf("models", 0, 0, "%v", err)}
	}
	if line, why, bad := notText(b); bad {
		return nil, diag.List{diag.Errorf(f.rel, line, 0, "%s; models/ holds UTF-8 .sql text files only: save it as UTF-8 or move it out of models/", why)}
	}
	sum := sha256.Sum256(b)
	if m := cache.byHash(f.rel, st, sum); m != nil {
		return withSum(m, sum), nil
	}
	m, err := parseModel(f.rel, string(b), base, folders)
	if err == nil {
		err = m.checkExprs(parser)
	}
	if err == nil {
		m.SettingsSum, _ = m.SettingsHash() // before put: the entry keeps it
		cache.put(f.rel, st, sum, m)
		m.FileSum = sum
	}
	return m, err
}

// withSum is a cached model with its file's hash, on a copy: the cache's
// entry is shared with the next load's.
func withSum(m *Model, sum [sha256.Size]byte) *Model {
	c := *m
	c.FileSum = sum
	return &c
}

// walk calls fn with the text of every regular file under dir whose name
// ends in ext.
func (p *Project) walk(dir, ext string, errs *diag.List, fn func(rel string, text string)) {
	p.walkFiles(dir, ext, errs, func(rel, full string, _ fs.FileInfo) error {
		b, err := os.ReadFile(full)
		if err != nil {
			return err
		}
		if line, why, bad := notText(b); bad && ext == ".sql" {
			errs.Add(rel, line, 0, "%s; %s/ holds UTF-8 .sql text files only: save it as UTF-8 or move it out of %s/", why, dir, dir)
			return nil
		}
		fn(rel, string(b))
		return nil
	})
}

// walkFiles calls fn with every regular file under dir whose name ends in
// ext: its slash-separated path relative to the root, its path and stat.
func (p *Project) walkFiles(dir, ext string, errs *diag.List, fn func(rel, full string, fi fs.FileInfo) error) {
	p.walkPaths(dir, ext, errs, func(rel, full string) error {
		fi, err := regularFile(rel, full, dir, ext)
		if err != nil {
			errs.Append(err)
			return nil
		}
		return fn(rel, full, fi)
	})
}

// walkPaths calls fn with the path, relative to the root and slash
// separated, and the full path of every file under dir whose name ends in
// ext, without a stat: the models' are taken on every CPU (loadModel).
func (p *Project) walkPaths(dir, ext string, errs *diag.List, fn func(rel, full string) error) {
	root := filepath.Join(p.Root, dir)
	err := filepath.WalkDir(root, func(full string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ext) {
			return nil
		}
		rel, _ := filepath.Rel(p.Root, full)
		return fn(filepath.ToSlash(rel), full)
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs.Add(dir, 0, 0, "%v", err)
	}
}

// regularFile is the stat of the file at full (a link followed), or a
// diag.List naming rel when it cannot be stated (a link to nothing) or is
// not a regular file: a FIFO or a device (a link to /dev/zero) would
// block the load or read without end.
func regularFile(rel, full, dir, ext string) (fs.FileInfo, error) {
	fi, err := os.Stat(full)
	if err != nil {
		return nil, diag.List{diag.Errorf(rel, 0, 0, "%v; remove it or make it a readable file", err)}
	}
	return fi, notRegular(rel, dir, ext, fi.Mode())
}

// modelFileStat is regularFile for a model file, through the project's
// folder when open (half the time of os.Stat, no allocation).
func modelFileStat(root *rawfile.Dir, f modelFile) (rawfile.Info, error) {
	if root == nil {
		fi, err := regularFile(f.rel, f.full, "models", ".sql")
		if err != nil {
			return rawfile.Info{}, err
		}
		info := rawfile.Info{Size: fi.Size(), MTime: fi.ModTime(), Mode: fi.Mode()}
		info.CTime, info.Ino = sysStat(fi)
		return info, nil
	}
	info, err := root.Stat(filepath.FromSlash(f.rel))
	if err != nil {
		return info, diag.List{diag.Errorf(f.rel, 0, 0, "%v; remove it or make it a readable file", err)}
	}
	return info, notRegular(f.rel, "models", ".sql", info.Mode)
}

// notRegular refuses a file that is not a regular one.
func notRegular(rel, dir, ext string, mode fs.FileMode) error {
	if mode.IsRegular() {
		return nil
	}
	return diag.List{diag.Errorf(rel, 0, 0, "not a regular file (%s); %s/ holds %s files only: remove it", mode.Type(), dir, ext)}
}

var validName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseModel splits the header from the body and merges the settings layers.
func parseModel(rel, text string, base *layer, folders []folderLayer) (*Model, error) {
	var errs diag.List
	name := strings.TrimSuffix(path.Base(rel), ".sql")
	if !validName.MatchString(name) {
		errs.Add(rel, 0, 0, "model name %q must be letters, digits and underscores (it becomes a table name); rename the file", name)
		return nil, errs.Err()
	}
	m := &Model{Name: name, Path: rel, HeaderLine: map[string]Pos{}}
	header, hLine, body, closed := splitHeader(text)
	if !closed {
		errs.Add(rel, hLine, 0, "the settings comment /* idemc is not closed: end it with */ before the SELECT")
		return nil, errs.Err()
	}
	m.Body = body
	m.BodyLine = firstContentLine(body)

	overlay(&m.Config, base)
	dir := strings.TrimPrefix(path.Dir(rel), "models")
	dir = strings.TrimPrefix(dir, "/")
	for i := range folders {
		if folderMatches(folders[i].pattern, dir, name) {
			overlay(&m.Config, &folders[i].layer)
		}
	}
	if hLine > 0 {
		var hcfg ModelConfig
		md, err := toml.Decode(header, &hcfg)
		if err != nil {
			errs.Append(tomlError(rel, hLine-1, err))
			return nil, errs.Err()
		}
		hlines := scanKeyLines(strings.Split(header, "\n")) // once: every key is looked up
		at := func(k toml.Key) Pos {
			if l := hlines.find(k); l > 0 {
				return Pos{rel, hLine - 1 + l}
			}
			return Pos{rel, hLine}
		}
		for _, t := range []string{"checks", "drift"} {
			if notTable(md, t) {
				errs.Add(rel, at(toml.Key{t}).Line, 0, "%s must be a table: %s", t, examples[t])
			}
		}
		hl := &layer{cfg: hcfg, defined: map[string]bool{}, where: rel}
		for _, k := range md.Keys() {
			hl.defined[k[0]] = true
			if _, done := m.HeaderLine[k[0]]; !done { // the same for every key under k[0]
				m.HeaderLine[k[0]] = at(k[:1])
			}
			if len(k) == 2 && (k[0] == "checks" || k[0] == "drift") {
				hl.defined[k[0]+"."+k[1]] = true
				m.HeaderLine[k[0]+"."+k[1]] = at(k)
			}
		}
		for _, k := range md.Undecoded() {
			reportUnknown(&errs, rel, header, hLine-1, k)
		}
		for key, msg := range hcfg.validate() {
			line := 0
			if hp, ok := m.HeaderLine[key]; ok {
				line = hp.Line
			}
			errs.Add(rel, line, 0, "%s", msg)
		}
		overlay(&m.Config, hl)
	}
	if m.Config.Materialized == "" {
		m.Config.Materialized = "view"
	}
	if len(errs) == 0 {
		// Settings that failed to read would only add noise here.
		m.settle(&errs)
	}
	return m, errs.Err()
}

// folderMatches reports whether a [models."pattern"] applies to a model in dir
// ("" for models/ itself). "staging/*" and "staging" match everything below staging.
func folderMatches(pattern, dir, name string) bool {
	pattern = strings.TrimSuffix(strings.TrimSuffix(pattern, "/*"), "/**")
	if pattern == "*" {
		return true
	}
	if ok, _ := path.Match(pattern, dir); ok {
		return true
	}
	if ok, _ := path.Match(pattern, path.Join(dir, name)); ok {
		return true
	}
	return dir == pattern || strings.HasPrefix(dir, pattern+"/")
}

// splitHeader finds a leading /* idemc … */ comment. It returns the TOML text,
// the line where the TOML starts (0 when there is no header) and the body with
// the header replaced by blank lines. closed is false when the comment has
// no */ (line is then the line of /* idemc).
func splitHeader(text string) (header string, line int, body string, closed bool) {
	trim := skipLineComments(text)
	if !strings.HasPrefix(trim, "/*") {
		return "", 0, text, true
	}
	start := len(text) - len(trim)
	rest := trim[2:]
	word := strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(word, "idemc") || len(word) > 5 && !strings.ContainsRune(" \t\r\n*", rune(word[5])) {
		return "", 0, text, true
	}
	end := strings.Index(text[start:], "*/")
	if end < 0 {
		return "", strings.Count(text[:start], "\n") + 1, text, false
	}
	end += start
	inner := text[start+2 : end]
	inner = inner[strings.Index(inner, "idemc")+len("idemc"):]
	headerStart := strings.Count(text[:start], "\n") + 1 // line of "/* idemc"
	blank := strings.Repeat("\n", strings.Count(text[start:end+2], "\n"))
	return inner, headerStart, text[:start] + blank + text[end+2:], true
}

// skipLineComments drops leading blank space and -- comment lines.
func skipLineComments(text string) string {
	for {
		text = strings.TrimLeft(text, " \t\r\n")
		if !strings.HasPrefix(text, "--") {
			return text
		}
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return ""
		}
		text = text[i+1:]
	}
}

func firstContentLine(body string) int {
	line := 1
	for _, l := range strings.Split(body, "\n") {
		if strings.TrimSpace(l) != "" {
			return line
		}
		line++
	}
	return 1
}
