package project

import (
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/suggest"
)

// Seed is a CSV file loaded into a table of the same name. It is parsed
// and typed when the project loads, so a malformed file is a compile error
// (nothing is written) and every engine loads the same typed Table.
type Seed struct {
	Name string
	Path string
	// ColumnTypes are the kinds declared in [seeds.NAME] column_types, by
	// column name as written there.
	ColumnTypes map[string]seed.Kind
	// Schema is the seed's own schema (a dbt +schema for this seed), ""
	// for the project's seed schema (SeedSchema).
	Schema string
	// Table is the parsed file; nil only when Load reported its errors.
	Table *seed.Table
}

// seedKeys are the settings of a [seeds.NAME] table.
var seedKeys = []string{"column_types"}

// seedConfig is one [seeds.NAME] table and where its settings were written.
type seedConfig struct {
	line  int                  // of [seeds.NAME]
	types map[string]seed.Kind // column → kind
	lines map[string]int       // column → line of its column_types entry
}

// kindAliases are type names from SQL and dbt, for "did you mean" hints.
var kindAliases = map[string]seed.Kind{
	"int": seed.BigInt, "integer": seed.BigInt, "int64": seed.BigInt, "number": seed.Double,
	"float": seed.Double, "float64": seed.Double, "real": seed.Double, "numeric": seed.DecimalKind(18, 2), "decimal": seed.DecimalKind(18, 2),
	"bool": seed.Boolean, "datetime": seed.Timestamp, "timestamp_ntz": seed.Timestamp,
	"string": seed.Text, "varchar": seed.Text, "char": seed.Text,
}

// parseSeedTables reads [seeds] (schema, and a [seeds.NAME] table per seed
// that needs settings). Unknown keys inside are left undecoded, so the
// caller reports them with the nearest valid key.
func (p *Project) parseSeedTables(md toml.MetaData, text string, raw map[string]toml.Primitive, errs *diag.List) {
	p.seedConfigs = map[string]*seedConfig{}
	for _, name := range sortedKeys(raw) {
		prim := raw[name]
		if name == "schema" {
			if err := md.PrimitiveDecode(prim, &p.SeedSchema); err != nil {
				errs.Add(FileName, keyLine(text, toml.Key{"seeds", "schema"}), 0, "seeds.schema must be a quoted string: schema = \"raw\"")
			}
			var err *diag.Error
			if p.SeedSchema, err = expandSchema(p.SeedSchema, "[seeds] schema", keyLine(text, toml.Key{"seeds", "schema"})); err != nil {
				errs.Append(err)
			}
			continue
		}
		if notTable(md, "seeds", name) {
			// A primitive counts as decoded, so the caller's sweep of
			// undecoded keys would not see this one.
			reportUnknown(errs, FileName, text, 0, toml.Key{"seeds", name})
			continue
		}
		var sc struct {
			ColumnTypes map[string]any `toml:"column_types"`
		}
		line := keyLine(text, toml.Key{"seeds", name})
		if err := md.PrimitiveDecode(prim, &sc); err != nil {
			errs.Add(FileName, line, 0, "[seeds.%s]: column_types must be a table of column = \"type\": column_types = { zip = \"text\" }", name)
			continue
		}
		cfg := &seedConfig{line: line, types: map[string]seed.Kind{}, lines: map[string]int{}}
		for _, col := range sortedKeys(sc.ColumnTypes) {
			at := keyLine(text, toml.Key{"seeds", name, "column_types", col})
			cfg.lines[col] = at
			s, ok := sc.ColumnTypes[col].(string)
			if !ok {
				errs.Add(FileName, at, 0, "seeds.%s.column_types.%s must be a quoted type name, not %s: one of %s", name, col, describeValue(sc.ColumnTypes[col]), kindList())
				continue
			}
			k, ok, err := seed.ParseKindErr(s)
			if err != nil {
				errs.Add(FileName, at, 0, "seeds.%s.column_types.%s = %v", name, col, err)
				continue
			}
			if !ok {
				errs.Add(FileName, at, 0, "seeds.%s.column_types.%s = %q is not a seed type%s", name, col, s, kindHint(s))
				continue
			}
			cfg.types[col] = k
		}
		p.seedConfigs[name] = cfg
	}
}

func kindList() string { return strings.Join(seed.KindNames(), ", ") + ", decimal(P,S)" }

func kindHint(s string) string {
	if k, ok := kindAliases[strings.ToLower(s)]; ok {
		if _, _, dec := k.Decimal(); dec {
			return fmt.Sprintf("; a decimal needs its precision and scale, e.g. %q (one of %s)", k, kindList())
		}
		return fmt.Sprintf("; did you mean %q? (one of %s)", k, kindList())
	}
	return didYouMeanValue(s, seed.KindNames())
}

// loadSeed parses one seed file with its declared column types, reporting
// the file's problems at their lines and column_types entries naming a
// column the file lacks at their line in project.toml.
func (p *Project) loadSeed(rel, name string, data []byte, errs *diag.List) *Seed {
	s := &Seed{Name: name, Path: rel}
	cfg := p.seedConfigs[name]
	if cfg != nil {
		s.ColumnTypes = cfg.types
	}
	t, perrs := seed.Parse(data, s.ColumnTypes)
	for _, e := range perrs {
		errs.Add(rel, e.Line, e.Col, "%s", e.Msg)
	}
	if cfg != nil {
		p.checkColumnNames(rel, name, data, cfg, errs)
	}
	s.Table = t
	return s
}

// checkColumnNames reports column_types entries that name no column of
// the file's header (compared ignoring case, as engines compare names).
func (p *Project) checkColumnNames(rel, name string, data []byte, cfg *seedConfig, errs *diag.List) {
	header := seed.Header(data)
	if header == nil {
		return // the file's own error says why
	}
	for _, col := range sortedKeys(cfg.lines) {
		found := false
		for _, h := range header {
			found = found || strings.EqualFold(h, col)
		}
		if found {
			continue
		}
		hint := fmt.Sprintf("; its columns are %s", strings.Join(header, ", "))
		if c := suggest.Closest(col, header); c != "" {
			hint = fmt.Sprintf("; did you mean %q?", c)
		}
		errs.Add(FileName, cfg.lines[col], 0, "seeds.%s.column_types names column %q, which %s does not have%s", name, col, rel, hint)
	}
}

// checkSeedTables reports [seeds.NAME] tables with no seeds/NAME.csv.
func (p *Project) checkSeedTables(errs *diag.List) {
	var names []string
	have := map[string]bool{}
	for _, s := range p.Seeds {
		names = append(names, s.Name)
		have[s.Name] = true
	}
	for _, name := range sortedKeys(p.seedConfigs) {
		if have[name] {
			continue
		}
		hint := "; add the file or remove the table"
		if c := suggest.Closest(name, names); c != "" {
			hint = fmt.Sprintf("; did you mean [seeds.%s]?", c)
		}
		errs.Add(FileName, p.seedConfigs[name].line, 0, "[seeds.%s] configures a seed, but there is no seeds/%s.csv%s", name, name, hint)
	}
}

// Seed returns the seed named name, or nil.
func (p *Project) Seed(name string) *Seed {
	for _, s := range p.Seeds {
		if s.Name == name {
			return s
		}
	}
	return nil
}
