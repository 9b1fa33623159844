// Package project reads an idemc project folder: project.toml, model files
// with their settings headers, macros, seeds and singular tests. A model's
// settings are validated as they load, and its checks typed (settings.go,
// checks.go), so that every such error is reported at load. It touches
// only the file system and never a database.
package project

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/internal/valuehash"
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
	RawVars       bool // var() prints values raw, as dbt's does (dbt projects); else as SQL literals
	Threads       int
	Models        []*Model      // sorted by name
	Macros        []File        // sorted by path
	Seeds         []*Seed       // sorted by name
	Tests         []File        // sorted by path
	Notify        []*Notify     // [[notify]] tables, in file order
	OpenLineage   *OpenLineage  // [openlineage], nil when absent
	HTTP          []*HTTPSource // [http.NAME] tables, sorted by name
	// DBT is set for a dbt project (dbt_project.yml): a model's or the
	// seeds' schema is then a suffix of the target's, as dbt's default
	// generate_schema_name makes it (<target schema>_<schema>).
	DBT bool
	// TargetsFile is where the targets are declared, for errors:
	// project.toml, or a dbt project's profiles.yml (relative to Root
	// when inside it).
	TargetsFile string
	// Warnings are things the project declares that idemc ignores, each
	// reported once (a dbt project's metrics, unmapped configs, …).
	Warnings []*diag.Error
	// TargetBound is the target a dbt model's config() read (target.x)
	// when the project loaded (LoadFor's); compiling this Project for
	// another one is refused: load it for that target instead.
	TargetBound string

	seedConfigs map[string]*seedConfig // [seeds.NAME] tables, by name
	// dbtFiles are a dbt project's settings files (dbt_project.yml and
	// the properties files), relative to the root.
	dbtFiles []string
}

// UndeclaredTarget is the error for a target name the project does not
// declare, with the remedy where its targets are: a [targets.NAME] table,
// or an output of the profile in profiles.yml.
func (p *Project) UndeclaredTarget(name, hint string, declared []string) string {
	if p.DBT {
		return fmt.Sprintf("target %q is not declared%s: add an output %s: under outputs: in %s, or use one of %s", name, hint, name, p.TargetsFile, strings.Join(declared, ", "))
	}
	return fmt.Sprintf("target %q is not declared%s: add [targets.%s] or use one of %s", name, hint, name, strings.Join(declared, ", "))
}

// SettingsFiles are the files besides models, macros, seeds and tests
// that the project's settings come from: project.toml, or a dbt project's
// dbt_project.yml and properties files (for the run record's hash).
func (p *Project) SettingsFiles() []string {
	if p.DBT {
		return p.dbtFiles
	}
	return []string{FileName}
}

// Target is one [targets.NAME] table. Values may hold ${VAR} references,
// resolved only when a connection is opened (Resolve).
type Target struct {
	Name        string
	Engine      string
	Schema      string
	StateSchema string
	Threads     int               // units run at once on this target; 0 = [run] threads
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
	// LoadedAt and Freshness are a dbt source's loaded_at_field and
	// freshness by table, recorded for docs; idemc does not check them.
	LoadedAt  map[string]string
	Freshness map[string]any
	// Identifiers are the relation names of a dbt source's tables whose
	// identifier differs from their name: source('s', 'name') reads the
	// relation identifier (nil for most sources).
	Identifiers map[string]string
}

// Identifier is the name of table's relation in the warehouse: its dbt
// identifier, else the table's name.
func (s *Source) Identifier(table string) string {
	if id, ok := s.Identifiers[table]; ok {
		return id
	}
	return table
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
	HeaderLine HeaderLines
	// Settled is filled at load once the model's settings read well.
	Settled
	// FileSum is the SHA-256 of the model's file as loaded (zero when the
	// loader kept none): a run's record hashes the project from it
	// instead of reading every model file again.
	FileSum Digest `json:"-"`
	// SettingsSum hashes Config and Settled (SettingsHash), kept
	// with the load cache's entry so that a warm compile's cache keys do
	// not encode every model's settings again; zero until computed.
	SettingsSum Digest `json:"-"`
}

// SettingsHash is the SHA-256 of m's Config and Settled, every field
// (valuehash): SettingsSum when the load computed it. ok is false when
// they cannot be encoded.
func (m *Model) SettingsHash() (sum [32]byte, ok bool) {
	if m.SettingsSum != ([32]byte{}) {
		return m.SettingsSum, true
	}
	b, err := valuehash.Append(nil, m.Config)
	if err == nil {
		b, err = valuehash.Append(b, m.Settled)
	}
	if err != nil {
		return sum, false
	}
	return sha256.Sum256(b), true
}

// Digest is a SHA-256 sum. gob writes an array element by element (32
// numbers to decode one by one); as bytes it is one copy: the load cache
// holds three per model, and decoding them was a third of its decoding.
type Digest [sha256.Size]byte

// MarshalBinary is d's bytes (for gob).
func (d Digest) MarshalBinary() ([]byte, error) { return d[:], nil }

// UnmarshalBinary sets d from b (for gob).
func (d *Digest) UnmarshalBinary(b []byte) error {
	if len(b) != len(d) {
		return fmt.Errorf("a digest of %d bytes, not %d", len(b), len(d))
	}
	copy(d[:], b)
	return nil
}

// Pos is a position of a setting, for errors about its value.
type Pos struct {
	Path string
	Line int
}

// Load reads the project at root. The error, if any, is a diag.List with every
// problem found, sorted by position.
func Load(root string) (*Project, error) { return LoadCached(root, "") }

// LoadCached is Load with the load cache in cacheDir (the project's
// target/; "" for none): model files unchanged since it was written are
// not read or parsed again (loadcache.go).
func LoadCached(root, cacheDir string) (*Project, error) {
	p, _, err := loadWith(root, cacheDir, time.Now())
	return p, err
}

// LoadFor is LoadCached for the named target ("" for $IDEMC_TARGET, else
// the default): a dbt model's config() may read target.name, .type,
// .schema or .threads before its template renders, and reads them for
// this target (the commands pass --target). A native project is the same
// for every target.
func LoadFor(root, cacheDir, target string) (*Project, error) {
	if isDBTProject(root) {
		return loadDBT(root, target)
	}
	return LoadCached(root, cacheDir)
}

// loadWith loads with the cache in cacheDir, as of start (for the racy
// window); it returns the cache too, for tests to count its work.
func loadWith(root, cacheDir string, start time.Time) (*Project, *loadCache, error) {
	if isDBTProject(root) {
		p, err := loadDBT(root, "")
		return p, nil, err
	}
	var errs diag.List
	text, err := os.ReadFile(filepath.Join(root, FileName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, diag.List{diag.Errorf("", 0, 0, "no %s in %s: run idemc from a project folder or pass --project", FileName, root)}
		}
		return nil, nil, err
	}
	p := &Project{Root: root}
	base, folders := p.parseProjectFile(string(text), &errs)
	if len(errs) > 0 {
		return nil, nil, errs.Err()
	}
	// The cache is read and decoded while the model files are found: the
	// walk waits on the kernel, the decoding on the CPU.
	opened := make(chan *loadCache, 1)
	go func() { opened <- openLoadCache(cacheDir, string(text), start) }()
	cache := p.loadFiles(base, folders, func() *loadCache { return <-opened }, &errs)
	cache.save() // the models that loaded well
	return p, cache, errs.Err()
}

// ThreadsFor is how many units run at once on the named target ("" for
// default_target): its own threads, else [run] threads, else 0 (the
// runner's default). --threads, when given, wins over both.
func (p *Project) ThreadsFor(target string) int {
	if target == "" {
		target = p.DefaultTarget
	}
	if t := p.Targets[target]; t != nil && t.Threads > 0 {
		return t.Threads
	}
	return p.Threads
}
