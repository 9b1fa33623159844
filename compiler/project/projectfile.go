package project

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/suggest"
)

var topKeys = []string{"name", "default_target", "targets", "sources", "seeds", "vars", "models", "run", "notify", "openlineage", "http", "drift"}

// rawSources are the [sources.NAME] tables as decoded.
type rawSources map[string]struct {
	Schema   string   `toml:"schema"`
	Database string   `toml:"database"`
	Tables   []string `toml:"tables"`
}

type rawProject struct {
	Name          string                    `toml:"name"`
	DefaultTarget string                    `toml:"default_target"`
	Targets       map[string]map[string]any `toml:"targets"`
	Sources       rawSources                `toml:"sources"`
	Seeds         map[string]toml.Primitive `toml:"seeds"` // schema, and [seeds.NAME] tables
	Vars          map[string]any            `toml:"vars"`
	Models        map[string]toml.Primitive `toml:"models"`
	HTTP          map[string]toml.Primitive `toml:"http"`
	Run           struct {
		Threads int `toml:"threads"`
	} `toml:"run"`
	Notify      []rawNotify          `toml:"notify"`
	Drift       map[string]CheckSpec `toml:"drift"` // every model's default [drift]
	OpenLineage *OpenLineage         `toml:"openlineage"`
}

// projectFile is project.toml being read.
type projectFile struct {
	text string
	md   toml.MetaData
	errs *diag.List
}

func (p *Project) parseProjectFile(text string, errs *diag.List) (*layer, []folderLayer) {
	var raw rawProject
	md, err := toml.Decode(text, &raw)
	if err != nil {
		errs.Append(tomlError(FileName, 0, err))
		return nil, nil
	}
	// The decoder silently drops a scalar where a table belongs (targets = 1).
	for _, k := range []string{"targets", "sources", "seeds", "vars", "models", "run", "http", "drift"} {
		if notTable(md, k) {
			errs.Add(FileName, keyLine(text, toml.Key{k}), 0, "%s must be a table: write it as a [%s] section", k, k)
		}
	}
	f := &projectFile{text: text, md: md, errs: errs}
	p.Name = raw.Name
	p.DefaultTarget = raw.DefaultTarget
	p.Vars = raw.Vars
	if p.Vars == nil {
		p.Vars = map[string]any{}
	}
	p.Threads = raw.Run.Threads
	if md.IsDefined("run", "threads") && p.Threads < 1 {
		errs.Add(FileName, keyLine(text, toml.Key{"run", "threads"}), 0, "run.threads must be at least 1 (units run at once), not %d", p.Threads)
	}
	p.parseSeedTables(md, text, raw.Seeds, errs)
	if p.Name == "" {
		errs.Add(FileName, 1, 0, "name is required: add name = \"my_project\"")
	}

	p.Targets = map[string]*Target{}
	for name, settings := range raw.Targets {
		if t := f.target(name, settings); t != nil {
			p.Targets[name] = t
		}
	}
	if p.DefaultTarget != "" && p.Targets[p.DefaultTarget] == nil {
		errs.Add(FileName, keyLine(text, toml.Key{"default_target"}), 0, "default_target %q is not a declared target%s", p.DefaultTarget, didYouMean(p.DefaultTarget, sortedKeys(p.Targets)))
	}

	p.parseSources(f, raw.Sources)
	p.parseNotify(text, raw.Notify, errs)
	p.parseOpenLineage(text, raw.OpenLineage, errs)
	p.parseHTTP(f, raw.HTTP)
	base, folders := f.modelLayers(raw.Models)
	parseProjectDrift(text, nil, raw.Drift, errs)
	parseProjectDrift(text, []string{"models"}, base.cfg.Drift, errs)
	for i := range folders {
		parseProjectDrift(text, []string{"models", folders[i].pattern}, folders[i].cfg.Drift, errs)
	}
	// [drift] is under every [models] layer: those win key by key.
	models := base.cfg.Drift
	base.cfg.Drift = nil
	overlayDrift(&base.cfg, raw.Drift)
	overlayDrift(&base.cfg, models)
	f.reportUndecoded()
	f.validateLayers(base, folders)
	// More specific folders apply later (so win): sort by pattern length.
	sort.SliceStable(folders, func(i, j int) bool {
		if len(folders[i].pattern) != len(folders[j].pattern) {
			return len(folders[i].pattern) < len(folders[j].pattern)
		}
		return folders[i].pattern < folders[j].pattern
	})
	return base, folders
}

// target reads one [targets.NAME] table, or returns nil when it is not one.
func (f *projectFile) target(name string, settings map[string]any) *Target {
	text, md, errs := f.text, f.md, f.errs
	t := &Target{Name: name, Settings: map[string]string{}, Line: keyLine(text, toml.Key{"targets", name})}
	if notTable(md, "targets", name) {
		errs.Add(FileName, keyLine(text, toml.Key{"targets", name}), 0, "targets.%s must be a table: write it as a [targets.%s] section with engine = \"duckdb\"", name, name)
		return nil
	}
	engine, _ := settings["engine"].(string)
	for k, v := range settings {
		line := keyLine(text, toml.Key{"targets", name, k})
		if msg := targetKeyError(engine, name, k); msg != "" {
			errs.Add(FileName, line, 0, "%s", msg)
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
		case "threads":
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				errs.Add(FileName, line, 0, "targets.%s.threads must be a whole number of at least 1 (units run at once), not %s: threads = 4", name, s)
				continue
			}
			t.Threads = n
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
		errs.Add(FileName, keyLine(text, toml.Key{"targets", name}), 0, "[targets.%s] needs engine = \"duckdb\" (or one of %s)", name, strings.Join(engineNames(), ", "))
	}
	return t
}

// parseSources reads the [sources.NAME] tables.
func (p *Project) parseSources(f *projectFile, raw rawSources) {
	text, md, errs := f.text, f.md, f.errs
	p.Sources = map[string]*Source{}
	for name, s := range raw {
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
}

// modelLayers reads [models]: settings for every model (the base layer)
// and [models."folder/*"] tables (folder layers, unsorted).
func (f *projectFile) modelLayers(raw map[string]toml.Primitive) (*layer, []folderLayer) {
	text, md, errs := f.text, f.md, f.errs
	base := &layer{defined: map[string]bool{}, where: FileName}
	var folders []folderLayer
	for key, prim := range raw {
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
	return base, folders
}

// reportUndecoded reports keys the decoder did not take: misspellings,
// each with the nearest valid key, once (not again for every key inside a
// misspelled table).
func (f *projectFile) reportUndecoded() {
	reported := map[string]bool{}
	for _, k := range f.md.Undecoded() {
		if len(k) > 1 && reported[k[:len(k)-1].String()] {
			reported[k.String()] = true
			continue
		}
		reported[k.String()] = true
		reportUnknown(f.errs, FileName, f.text, 0, k)
	}
}

// validateLayers checks the values of the [models] settings layers.
func (f *projectFile) validateLayers(base *layer, folders []folderLayer) {
	text, md, errs := f.text, f.md, f.errs
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

// engineNames are the registered engines: the adapters, not this package,
// know which engines exist and what each reads.
func engineNames() []string { return adapters.Names() }

// targetKeys are the keys a target of engine may have: the common ones and
// the engine's (adapters.Adapter.Settings); every engine's when it is
// unknown.
func targetKeys(engine string) []string {
	keys := adapters.CommonSettings()
	if ad, ok := adapters.Lookup(engine); ok {
		return append(keys, ad.Settings...)
	}
	for _, n := range adapters.Names() {
		ad, _ := adapters.Lookup(n)
		for _, k := range ad.Settings {
			if !contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// targetKeyError says what is wrong with key k of target name, of engine
// ("" for nothing): no engine reads it, or this one does not.
func targetKeyError(engine, name, k string) string {
	keys := targetKeys(engine)
	switch {
	case contains(keys, k):
		return ""
	case contains(targetKeys(""), k):
		return fmt.Sprintf("[targets.%s]: engine %s does not read %q; its settings are %s", name, engine, k, strings.Join(keys, ", "))
	}
	return fmt.Sprintf("unknown key %q in [targets.%s]%s", k, name, didYouMean(k, keys))
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
