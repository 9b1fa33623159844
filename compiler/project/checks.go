package project

import (
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/idemc/idemc/compiler/analyze"
	"github.com/idemc/idemc/compiler/diag"
)

// Check is one check of a model's [checks] table (DESIGN §8), read and
// validated at load. The relation a check reads is named as written: the
// compiler resolves it for the target.
type Check struct {
	Kind     string // one of CheckKinds
	Name     string // unique(a, b), accepted_values(status), …: audit rows and messages show it
	Severity string // "error" fails the unit; "warn" is reported
	Pos      Pos    // the line that set it, for errors found later
	// Columns are the checked columns (unique, not_null), or the one
	// column (accepted_values, relationships).
	Columns []string
	Values  []string // accepted_values: the values allowed
	// Relation is the model, seed or source.table that relationships
	// refers to or row_count_matches counts.
	Relation string
	// RelationColumn is relationships' referred column, or the column of
	// Relation that row_count_matches windows (default: partition_by).
	RelationColumn string
	MinRows        int64  // min_rows
	Expr           string // expect: one boolean aggregate expression
	Index          int    // expect: the expression's 1-based place in the list
}

// checkEntry is one [checks] key being read.
type checkEntry struct {
	kind, severity string
	pos            Pos
	val            any // the value, without severity
	errs           *diag.List
}

func (e *checkEntry) bad(format string, args ...any) {
	e.errs.Add(e.pos.Path, e.pos.Line, 0, format, args...)
}

func (e *checkEntry) check(name string) Check {
	return Check{Kind: e.kind, Name: name, Severity: e.severity, Pos: e.pos}
}

// readChecks types the merged [checks] table, by kind, with positioned
// errors for values of the wrong shape.
func (m *Model) readChecks(errs *diag.List) []Check {
	if len(m.Config.Checks) == 0 {
		return nil
	}
	out := make([]Check, 0, len(m.Config.Checks))
	for _, kind := range sortedKeys(m.Config.Checks) {
		e := &checkEntry{kind: kind, pos: m.settingPos("checks." + kind), errs: errs}
		e.severity, e.val = splitSeverity(m.Config.Checks[kind].Value)
		if e.severity != "error" && e.severity != "warn" {
			e.bad("checks.%s: severity %q is not valid; use \"error\" or \"warn\"", kind, e.severity)
		}
		switch kind {
		case "unique", "not_null":
			out = e.columns(out)
		case "accepted_values":
			out = e.acceptedValues(out)
		case "relationships":
			out = e.relationships(out)
		case "row_count_matches":
			out = e.rowCountMatches(out, m.Config.PartitionBy)
		case "min_rows":
			out = e.minRows(out)
		case "expect":
			out = e.expect(out)
		}
	}
	return out
}

// splitSeverity reads { severity = "warn", … }: the check's value is then
// its value or columns key, or the table without severity.
func splitSeverity(raw any) (string, any) {
	m, ok := raw.(map[string]any)
	if !ok {
		return "error", raw
	}
	s, ok := m["severity"]
	if !ok {
		return "error", raw
	}
	cp := map[string]any{}
	for k, v := range m {
		if k != "severity" {
			cp[k] = v
		}
	}
	if v, ok := cp["value"]; ok {
		return fmt.Sprint(s), v
	}
	if v, ok := cp["columns"]; ok {
		return fmt.Sprint(s), v
	}
	return fmt.Sprint(s), cp
}

func (e *checkEntry) columns(out []Check) []Check {
	cols, ok := stringsOf(e.val)
	if !ok || len(cols) == 0 {
		e.bad("checks.%s must be a list of columns: %s = [\"a\", \"b\"]", e.kind, e.kind)
		return out
	}
	c := e.check(e.kind + "(" + strings.Join(cols, ", ") + ")")
	c.Columns = cols
	return append(out, c)
}

func (e *checkEntry) acceptedValues(out []Check) []Check {
	m, ok := e.val.(map[string]any)
	if !ok || len(m) == 0 {
		e.bad("checks.accepted_values must be a table: accepted_values = { status = [\"ok\", \"void\"] }")
		return out
	}
	for _, col := range sortedKeys(m) {
		vals, ok := stringsOf(m[col])
		if !ok {
			e.bad("checks.accepted_values.%s must be a list of values", col)
			continue
		}
		c := e.check("accepted_values(" + col + ")")
		c.Columns, c.Values = []string{col}, vals
		out = append(out, c)
	}
	return out
}

func (e *checkEntry) relationships(out []Check) []Check {
	m, ok := e.val.(map[string]any)
	if !ok || len(m) == 0 {
		e.bad("checks.relationships must be a table: relationships = { user_id = \"dim_users.user_id\" }")
		return out
	}
	for _, col := range sortedKeys(m) {
		ref, _ := m[col].(string)
		i := strings.LastIndexByte(ref, '.')
		if i <= 0 {
			e.bad("checks.relationships.%s must name model.column, e.g. \"dim_users.user_id\"", col)
			continue
		}
		c := e.check("relationships(" + col + " -> " + ref + ")")
		c.Columns, c.Relation, c.RelationColumn = []string{col}, ref[:i], ref[i+1:]
		out = append(out, c)
	}
	return out
}

func (e *checkEntry) rowCountMatches(out []Check, partitionBy string) []Check {
	m, ok := e.val.(map[string]any)
	src, _ := m["source"].(string)
	col, _ := m["column"].(string)
	if !ok || src == "" {
		e.bad("checks.row_count_matches needs a source: row_count_matches = { source = \"raw.staging_events\", column = \"event_date\" }")
		return out
	}
	if col == "" {
		col = partitionBy
	}
	c := e.check("row_count_matches(" + src + ")")
	c.Relation, c.RelationColumn = src, col
	return append(out, c)
}

func (e *checkEntry) minRows(out []Check) []Check {
	n, ok := e.val.(int64)
	if !ok || n < 0 {
		e.bad("checks.min_rows must be a whole number: min_rows = 1 or min_rows = { value = 1, severity = \"warn\" }")
		return out
	}
	c := e.check("min_rows(" + strconv.FormatInt(n, 10) + ")")
	c.MinRows = n
	return append(out, c)
}

func (e *checkEntry) expect(out []Check) []Check {
	exprs, ok := stringsOf(e.val)
	if !ok || len(exprs) == 0 {
		e.bad("checks.expect must be a list of boolean aggregate expressions: expect = [\"sum(amount) >= 0\"]")
		return out
	}
	for i, x := range exprs {
		c := e.check("expect(" + x + ")")
		c.Expr, c.Index = x, i+1
		out = append(out, c)
	}
	return out
}

// stringsOf reads a string or a list of strings.
func stringsOf(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// WriteChecks writes the [checks] table as the code hash covers it: each
// key and its value as written, by key.
func (c *ModelConfig) WriteChecks(w io.Writer) {
	for _, k := range sortedKeys(c.Checks) {
		fmt.Fprintf(w, "|%s=%v", k, c.Checks[k].Value)
	}
}

// checkReads refuses a check that reads a relation the project does not
// have and, unless exprsChecked (the models' loading did it: checkExprs),
// an expect expression that is not exactly one SQL expression. files are
// every model file, those that failed to load included (they are reported
// already).
func (p *Project) checkReads(files []string, exprsChecked bool, errs *diag.List) {
	known := map[string]bool{}
	for _, f := range files {
		known[strings.TrimSuffix(path.Base(f), ".sql")] = true
	}
	for _, s := range p.Seeds {
		known[s.Name] = true
	}
	var parser *analyze.Parser
	for _, m := range p.Models {
		if !exprsChecked {
			errs.Append(m.checkExprs(&parser))
		}
		for _, c := range m.Checks {
			if c.Relation == "" || known[c.Relation] || p.hasSourceTable(c.Relation) {
				continue
			}
			errs.Add(c.Pos.Path, c.Pos.Line, 0, "checks.%s: %q is neither a model, a seed nor a declared source table (source.table)", c.Kind, c.Relation)
		}
	}
}

// checkExprs refuses an expect expression of m that is not exactly one
// SQL expression: it is pasted into the check query as is, so it must
// stay one expression there, with no second statement, on any engine.
// *parser is made on first use (most models have no expect).
func (m *Model) checkExprs(parser **analyze.Parser) error {
	var errs diag.List
	for _, c := range m.Checks {
		if c.Kind != "expect" {
			continue
		}
		if *parser == nil {
			*parser = analyze.NewParser()
		}
		if err := (*parser).CheckExpr(c.Expr); err != nil {
			errs.Add(c.Pos.Path, c.Pos.Line, 0, "checks.expect[%d]: %q is not one SQL expression: %v", c.Index, c.Expr, err)
		}
	}
	return errs.Err()
}

// hasSourceTable reports whether name is a declared source.table.
func (p *Project) hasSourceTable(name string) bool {
	i := strings.IndexByte(name, '.')
	if i <= 0 {
		return false
	}
	src := p.Sources[name[:i]]
	return src != nil && contains(src.Tables, name[i+1:])
}
