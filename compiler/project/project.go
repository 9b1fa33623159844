// Package project reads an idemc project folder: project.toml, model files
// with their settings headers, macros, seeds and singular tests. It touches
// only the file system and never a database.
package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/suggest"
)

// FileName is the project file at the root of every project.
const FileName = "project.toml"

// Project is a loaded project folder.
type Project struct {
	Root          string
	Name          string
	DefaultTarget string
	Targets       map[string]*Target
	Sources       map[string]*Source
	SeedSchema    string
	Vars          map[string]any
	Threads       int
	Models        []*Model // sorted by name
	Macros        []File   // sorted by path
	Seeds         []*Seed  // sorted by name
	Tests         []File   // sorted by path

	seedConfigs map[string]*seedConfig // [seeds.NAME] tables, by name
}

// Target is one [targets.NAME] table. Values may hold ${VAR} references,
// resolved only when a connection is opened (Resolve).
type Target struct {
	Name        string
	Engine      string
	Schema      string
	StateSchema string
	Settings    map[string]string // path, dsn, account, … as written
	Line        int               // line of [targets.NAME] in project.toml, for errors
	// SchemaErr is set when schema or state_schema names an unset ${VAR};
	// it is reported when the target is compiled for, not for every target.
	SchemaErr error
}

// Source is one [sources.NAME] table.
type Source struct {
	Name     string
	Schema   string
	Database string
	Tables   []string
	Line     int // of [sources.NAME] in project.toml, for errors
}

// File is a text file of the project.
type File struct {
	Path string // slash-separated, relative to the root
	Text string
}

// Model is one models/**/NAME.sql file with its merged settings.
type Model struct {
	Name     string
	Path     string // slash-separated, relative to the root
	Body     string // the template, header comment blanked out so lines keep their numbers
	BodyLine int    // line of the first non-blank body line, for model-level findings
	Config   ModelConfig
	// HeaderLine maps a setting name to the line that set it (header or project.toml).
	HeaderLine map[string]Pos
	// Settled is filled at load once the model's settings read well.
	Settled
}

// Pos is a position of a setting, for errors about its value.
type Pos struct {
	Path string
	Line int
}

// targetKeys are the settings a target may have; engines read the ones they need.
var targetKeys = []string{"engine", "schema", "state_schema", "path", "dsn", "account", "user", "password",
	"role", "warehouse", "database", "private_key_path", "project", "dataset", "location",
	"credentials_file", "host", "port", "http_path", "token", "catalog", "protocol", "threads"}

var topKeys = []string{"name", "default_target", "targets", "sources", "seeds", "vars", "models", "run"}

type rawProject struct {
	Name          string                    `toml:"name"`
	DefaultTarget string                    `toml:"default_target"`
	Targets       map[string]map[string]any `toml:"targets"`
	Sources       map[string]struct {
		Schema   string   `toml:"schema"`
		Database string   `toml:"database"`
		Tables   []string `toml:"tables"`
	} `toml:"sources"`
	Seeds  map[string]toml.Primitive `toml:"seeds"` // schema, and [seeds.NAME] tables
	Vars   map[string]any            `toml:"vars"`
	Models map[string]toml.Primitive `toml:"models"`
	Run    struct {
		Threads int `toml:"threads"`
	} `toml:"run"`
}

// folderLayer is a [models."staging/*"] table.
type folderLayer struct {
	pattern string
	layer
}

// Load reads the project at root. The error, if any, is a diag.List with every
// problem found, sorted by position.
func Load(root string) (*Project, error) {
	var errs diag.List
	text, err := os.ReadFile(filepath.Join(root, FileName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, diag.List{diag.Errorf("", 0, 0, "no %s in %s: run idemc from a project folder or pass --project", FileName, root)}
		}
		return nil, err
	}
	p := &Project{Root: root}
	base, folders := p.parseProjectFile(string(text), &errs)
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	p.loadFiles(base, folders, &errs)
	return p, errs.Err()
}

func (p *Project) parseProjectFile(text string, errs *diag.List) (*layer, []folderLayer) {
	var raw rawProject
	md, err := toml.Decode(text, &raw)
	if err != nil {
		errs.Append(tomlError(FileName, 0, err))
		return nil, nil
	}
	// The decoder silently drops a scalar where a table belongs (targets = 1).
	for _, k := range []string{"targets", "sources", "seeds", "vars", "models", "run"} {
		if notTable(md, k) {
			errs.Add(FileName, keyLine(text, toml.Key{k}), 0, "%s must be a table: write it as a [%s] section", k, k)
		}
	}
	p.Name = raw.Name
	p.DefaultTarget = raw.DefaultTarget
	p.Vars = raw.Vars
	if p.Vars == nil {
		p.Vars = map[string]any{}
	}
	p.Threads = raw.Run.Threads
	p.parseSeedTables(md, text, raw.Seeds, errs)
	if p.Name == "" {
		errs.Add(FileName, 1, 0, "name is required: add name = \"my_project\"")
	}

	p.Targets = map[string]*Target{}
	for name, settings := range raw.Targets {
		t := &Target{Name: name, Settings: map[string]string{}, Line: keyLine(text, toml.Key{"targets", name})}
		if notTable(md, "targets", name) {
			errs.Add(FileName, keyLine(text, toml.Key{"targets", name}), 0, "targets.%s must be a table: write it as a [targets.%s] section with engine = \"duckdb\"", name, name)
			continue
		}
		for k, v := range settings {
			line := keyLine(text, toml.Key{"targets", name, k})
			if !contains(targetKeys, k) {
				errs.Add(FileName, line, 0, "unknown key %q in [targets.%s]%s", k, name, didYouMean(k, targetKeys))
				continue
			}
			var s string
			switch x := v.(type) {
			case string:
				s = x
			case int64:
				s = strconv.FormatInt(x, 10)
			case bool:
				s = strconv.FormatBool(x)
			default:
				errs.Add(FileName, line, 0, "targets.%s.%s must be a quoted string, not %s: %s = \"...\"", name, k, describeValue(v), k)
				continue
			}
			switch k {
			case "engine":
				t.Engine = s
				if s != "" && !contains(engineNames(), s) {
					errs.Add(FileName, line, 0, "targets.%s: unknown engine %q%s", name, s, didYouMeanValue(s, engineNames()))
				}
			case "schema", "state_schema":
				// An unset variable matters only when this target is
				// used: Compile reports SchemaErr then.
				v, err := expandSchema(s, fmt.Sprintf("[targets.%s] %s", name, k), line)
				if err != nil && t.SchemaErr == nil {
					t.SchemaErr = err
				}
				if k == "schema" {
					t.Schema = v
				} else {
					t.StateSchema = v
				}
			default:
				t.Settings[k] = s
			}
		}
		if t.Engine == "" {
			errs.Add(FileName, keyLine(text, toml.Key{"targets", name}), 0, "[targets.%s] needs engine = \"duckdb\" (or postgres, mysql, snowflake, bigquery, spark)", name)
		}
		p.Targets[name] = t
	}
	if p.DefaultTarget != "" && p.Targets[p.DefaultTarget] == nil {
		errs.Add(FileName, keyLine(text, toml.Key{"default_target"}), 0, "default_target %q is not a declared target%s", p.DefaultTarget, didYouMean(p.DefaultTarget, sortedKeys(p.Targets)))
	}

	p.Sources = map[string]*Source{}
	for name, s := range raw.Sources {
		if notTable(md, "sources", name) {
			errs.Add(FileName, keyLine(text, toml.Key{"sources", name}), 0, "sources.%s must be a table: write it as a [sources.%s] section with schema and tables", name, name)
			continue
		}
		if s.Schema == "" {
			errs.Add(FileName, keyLine(text, toml.Key{"sources", name}), 0, "[sources.%s] needs schema = \"...\"", name)
		}
		schema, err := expandSchema(s.Schema, "[sources."+name+"] schema", keyLine(text, toml.Key{"sources", name, "schema"}))
		if err != nil {
			errs.Append(err)
		}
		p.Sources[name] = &Source{Name: name, Schema: schema, Database: s.Database, Tables: s.Tables, Line: keyLine(text, toml.Key{"sources", name})}
	}

	base := &layer{defined: map[string]bool{}, where: FileName}
	var folders []folderLayer
	for key, prim := range raw.Models {
		if contains(configKeys, key) {
			// A plain setting under [models]: decode it into the base layer.
			one := map[string]toml.Primitive{key: prim}
			if err := decodeSetting(md, one, &base.cfg); err != nil {
				errs.Append(tomlError(FileName, 0, err))
			}
			markDefined(base.defined, md, toml.Key{"models", key}, key)
			continue
		}
		if md.Type("models", key) != "Hash" {
			errs.Add(FileName, keyLine(text, toml.Key{"models", key}), 0, "unknown key %q in [models]%s", key, didYouMean(key, configKeys))
			continue
		}
		// A folder pattern: [models."staging/*"].
		fl := folderLayer{pattern: key, layer: layer{defined: map[string]bool{}, where: FileName}}
		if err := md.PrimitiveDecode(prim, &fl.cfg); err != nil {
			errs.Append(tomlError(FileName, 0, err))
		}
		for _, k := range md.Keys() {
			if len(k) >= 3 && k[0] == "models" && k[1] == key {
				fl.defined[k[2]] = true
				if len(k) == 4 && k[2] == "checks" {
					fl.defined["checks."+k[3]] = true
				}
			}
		}
		folders = append(folders, fl)
	}
	// Undecoded keys are misspellings; report each with the nearest valid
	// key, once: not again for every key inside a misspelled table.
	reported := map[string]bool{}
	for _, k := range md.Undecoded() {
		if len(k) > 1 && reported[k[:len(k)-1].String()] {
			reported[k.String()] = true
			continue
		}
		reported[k.String()] = true
		reportUnknown(errs, FileName, text, 0, k)
	}
	checkTables := func(prefix toml.Key) {
		k := append(append(toml.Key{}, prefix...), "checks")
		if notTable(md, k...) {
			errs.Add(FileName, keyLine(text, k), 0, "%s must be a table: %s", k, examples["checks"])
		}
	}
	checkTables(toml.Key{"models"})
	for key, msg := range base.cfg.validate() {
		errs.Add(FileName, settingLine(text, toml.Key{"models"}, key), 0, "%s", msg)
	}
	for i := range folders {
		checkTables(toml.Key{"models", folders[i].pattern})
		for key, msg := range folders[i].cfg.validate() {
			errs.Add(FileName, settingLine(text, toml.Key{"models", folders[i].pattern}, key), 0, "%s", msg)
		}
	}
	// More specific folders apply later (so win): sort by pattern length.
	sort.SliceStable(folders, func(i, j int) bool {
		if len(folders[i].pattern) != len(folders[j].pattern) {
			return len(folders[i].pattern) < len(folders[j].pattern)
		}
		return folders[i].pattern < folders[j].pattern
	})
	return base, folders
}

// notTable reports whether key holds a value other than a table. (The
// decoder silently drops a scalar where a table belongs: targets = 1.)
func notTable(md toml.MetaData, key ...string) bool {
	t := md.Type(key...)
	return t != "" && t != "Hash"
}

// settingLine is the line of a setting ("lookback", "checks.unique") under
// the table prefix, or of the table itself when not found.
func settingLine(text string, prefix toml.Key, setting string) int {
	k := append(append(toml.Key{}, prefix...), strings.Split(setting, ".")...)
	if line := keyLine(text, k); line > 0 {
		return line
	}
	return keyLine(text, prefix)
}

// knownEngines are the engines of DESIGN §7; a build may register fewer
// (compile says which) or more.
var knownEngines = []string{"bigquery", "duckdb", "mysql", "postgres", "snowflake", "spark"}

func engineNames() []string {
	out := append([]string{}, knownEngines...)
	for _, n := range adapters.Names() {
		if !contains(out, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func didYouMeanValue(v string, valid []string) string {
	if s := suggest.Closest(v, valid); s != "" {
		return fmt.Sprintf("; did you mean %q? (one of %s)", s, strings.Join(valid, ", "))
	}
	return "; use one of " + strings.Join(valid, ", ")
}

func decodeSetting(md toml.MetaData, one map[string]toml.Primitive, cfg *ModelConfig) error {
	for k, prim := range one {
		if err := md.PrimitiveDecode(prim, fieldByTag(cfg, k)); err != nil {
			return err
		}
	}
	return nil
}

// fieldByTag returns a pointer to the ModelConfig field with that toml tag.
func fieldByTag(cfg *ModelConfig, tag string) any {
	v := reflect.ValueOf(cfg).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Tag.Get("toml") == tag {
			return v.Field(i).Addr().Interface()
		}
	}
	return nil
}

func markDefined(defined map[string]bool, md toml.MetaData, full toml.Key, key string) {
	defined[key] = true
	if key == "checks" {
		for _, k := range md.Keys() {
			if len(k) == len(full)+1 && k[:len(full)].String() == full.String() {
				defined["checks."+k[len(full)]] = true
			}
		}
	}
}

func (p *Project) loadFiles(base *layer, folders []folderLayer, errs *diag.List) {
	byName := map[string]*Model{}
	walk := func(dir, ext string, fn func(rel string, text string)) {
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
			// A FIFO or a device (a link to /dev/zero) would block the
			// load or read without end.
			if fi, err := os.Stat(full); err == nil && !fi.Mode().IsRegular() {
				errs.Add(filepath.ToSlash(rel), 0, 0, "not a regular file (%s); %s/ holds %s files only: remove it", fi.Mode().Type(), dir, ext)
				return nil
			}
			b, err := os.ReadFile(full)
			if err != nil {
				return err
			}
			if line, why, bad := notText(b); bad && ext == ".sql" {
				errs.Add(filepath.ToSlash(rel), line, 0, "%s; %s/ holds UTF-8 .sql text files only: save it as UTF-8 or move it out of %s/", why, dir, dir)
				return nil
			}
			fn(filepath.ToSlash(rel), string(b))
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs.Add(dir, 0, 0, "%v", err)
		}
	}
	var files []File
	walk("models", ".sql", func(rel, text string) { files = append(files, File{Path: rel, Text: text}) })
	// Headers are parsed in parallel (TOML decoding is most of loading);
	// results are then taken in walk order, so errors stay deterministic.
	models := make([]*Model, len(files))
	merrs := make([]error, len(files))
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
			for i := range next {
				models[i], merrs[i] = parseModel(files[i].Path, files[i].Text, base, folders)
			}
		}()
	}
	wg.Wait()
	for i, m := range models {
		errs.Append(merrs[i])
		if m == nil {
			continue
		}
		if prev, ok := byName[m.Name]; ok {
			errs.Add(files[i].Path, 1, 0, "duplicate model name %q: also defined in %s; rename one of the files", m.Name, prev.Path)
			continue
		}
		byName[m.Name] = m
		p.Models = append(p.Models, m)
	}
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
	p.checkReads(files, errs)
	sort.Slice(p.Models, func(i, j int) bool { return p.Models[i].Name < p.Models[j].Name })
	sort.Slice(p.Seeds, func(i, j int) bool { return p.Seeds[i].Name < p.Seeds[j].Name })
	sort.Slice(p.Macros, func(i, j int) bool { return p.Macros[i].Path < p.Macros[j].Path })
	sort.Slice(p.Tests, func(i, j int) bool { return p.Tests[i].Path < p.Tests[j].Path })
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
		hlines := strings.Split(header, "\n") // split once: every key is looked up
		at := func(k toml.Key) Pos {
			if l := keyLineIn(hlines, k); l > 0 {
				return Pos{rel, hLine - 1 + l}
			}
			return Pos{rel, hLine}
		}
		if notTable(md, "checks") {
			errs.Add(rel, at(toml.Key{"checks"}).Line, 0, "checks must be a table: %s", examples["checks"])
		}
		hl := &layer{cfg: hcfg, defined: map[string]bool{}, where: rel}
		for _, k := range md.Keys() {
			hl.defined[k[0]] = true
			if _, done := m.HeaderLine[k[0]]; !done { // the same for every key under k[0]
				m.HeaderLine[k[0]] = at(k[:1])
			}
			if len(k) == 2 && k[0] == "checks" {
				hl.defined["checks."+k[1]] = true
				m.HeaderLine["checks."+k[1]] = at(k)
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

func reportUnknown(errs *diag.List, file, text string, lineOffset int, k toml.Key) {
	line := keyLine(text, k)
	if line > 0 {
		line += lineOffset
	} else if lineOffset > 0 {
		line = lineOffset + 1 // the header's first line
	}
	last := k[len(k)-1]
	var valid []string
	switch {
	case len(k) == 1 && lineOffset == 0 && file == FileName:
		valid = topKeys
	case len(k) >= 2 && k[len(k)-2] == "watermark":
		valid = watermarkKeys
	case len(k) == 3 && k[0] == "sources":
		valid = []string{"schema", "database", "tables"}
	case len(k) == 2 && k[0] == "seeds":
		valid = []string{"schema"}
	case len(k) == 3 && k[0] == "seeds":
		valid = seedKeys
	case len(k) == 2 && k[0] == "run":
		valid = []string{"threads"}
	default:
		valid = configKeys
	}
	name := strconv.Quote(k.String())
	if strings.Contains(k.String(), `"`) {
		name = k.String() // models."staging/*".x reads better unescaped
	}
	errs.Add(file, line, 0, "unknown key %s%s", name, didYouMean(last, valid))
}

func didYouMean(name string, valid []string) string {
	if s := suggest.Closest(name, valid); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return fmt.Sprintf("; valid keys: %s", strings.Join(valid, ", "))
}

// keyLine finds the line (1-based) where a dotted key is set in TOML text, by
// tracking [table] headers. It returns 0 when not found.
func keyLine(text string, k toml.Key) int {
	return keyLineIn(strings.Split(text, "\n"), k)
}

// keyLineIn is keyLine on a text split into lines, for many keys of one text.
func keyLineIn(lines []string, k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	var table []string
	tableLine := 0
	for i, raw := range lines {
		l := strings.TrimSpace(stripComment(raw))
		if strings.HasPrefix(l, "[") {
			l = strings.Trim(l, "[] \t")
			table = splitDotted(l)
			if equalKeys(table, k) {
				return i + 1
			}
			if tableLine == 0 && len(table) > len(k) && equalKeys(table[:len(k)], k) {
				tableLine = i + 1 // [k.sub] defines k implicitly
			}
			continue
		}
		eq := strings.IndexByte(l, '=')
		if eq <= 0 {
			continue
		}
		full := append(append([]string{}, table...), splitDotted(strings.TrimSpace(l[:eq]))...)
		if equalKeys(full, k) || (len(full) > len(k) && equalKeys(full[:len(k)], k)) {
			return i + 1
		}
		// inline tables: key = { a = 1 } sets k = key.a
		if len(full) == len(k)-1 && equalKeys(full, k[:len(k)-1]) && strings.Contains(l[eq:], k[len(k)-1]) {
			return i + 1
		}
	}
	return tableLine
}

// stripComment removes a # comment that is not inside a quoted string.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return line[:i]
		}
	}
	return line
}

func splitDotted(s string) []string {
	parts := strings.Split(s, ".")
	out := parts[:0]
	for i := 0; i < len(parts); i++ {
		p := strings.TrimSpace(parts[i])
		if strings.HasPrefix(p, `"`) && !strings.HasSuffix(p, `"`) || p == `"` {
			// a quoted key containing dots
			j := i + 1
			for j < len(parts) && !strings.HasSuffix(parts[j], `"`) {
				j++
			}
			if j < len(parts) {
				p = strings.Join(parts[i:j+1], ".")
				i = j
			}
		}
		out = append(out, strings.Trim(strings.TrimSpace(p), `"'`))
	}
	return out
}

func equalKeys(a []string, b toml.Key) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
