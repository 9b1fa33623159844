package compiler

import (
	"fmt"
	"strings"

	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// checkNames refuses the names the engine would cut or refuse: PostgreSQL
// keeps the first 63 bytes of a longer name, so two models sharing them
// write one table, and MySQL/MariaDB refuse more than 64 characters only
// when the statement runs. It checks the relation and schema of every
// model, seed and source and the output columns the analysis read. Names
// idemc derives (stage, index, build-aside and verify scratch names) are
// shortened with a hash instead (sqlgen.Derive).
func (cc *compilation) checkNames() {
	p, tgt, d, list, errs := cc.p, cc.tgt, cc.d, cc.list, &cc.errs
	l := d.IdentLimit()
	over := func(name string, max int) bool { return max > 0 && l.Len(name) > max }
	report := func(path string, line int, what, name string, max int, remedy string) {
		errs.Add(path, line, 0, "%s %q is %d %s long, over %s's limit of %d %s: %s",
			what, name, l.Len(name), l.Unit(), d.Name(), max, l.Unit(), remedy)
	}
	overCol := func(name string) bool { return l.Column > 0 && l.ColumnLen(name) > l.Column }
	reportCol := func(path string, line int, what, name, remedy string) {
		errs.Add(path, line, 0, "%s %q is %d %s long, over %s's limit of %d %s: %s",
			what, name, l.ColumnLen(name), l.ColumnUnit(), d.Name(), l.Column, l.ColumnUnit(), remedy)
	}
	schemaPos := func(c *compiled) (string, int) {
		if pos, ok := c.m.HeaderLine["schema"]; ok {
			return pos.Path, pos.Line
		}
		return project.FileName, tgt.Line
	}
	for _, c := range list {
		if over(c.rel.Name, l.Name) {
			if pos, ok := c.m.HeaderLine["alias"]; ok {
				report(pos.Path, pos.Line, "alias", c.rel.Name, l.Name, "set a shorter alias")
			} else {
				report(c.m.Path, 1, "model name", c.rel.Name, l.Name, "set alias = \"shorter_name\" in the model's header, or rename the file")
			}
		}
		if over(c.rel.Schema, l.Name) {
			path, line := schemaPos(c)
			report(path, line, "schema", c.rel.Schema, l.Name, "set a shorter schema")
		}
		if up := cc.starOverLineage(c); up != "" {
			errs.Add(c.m.Path, lineOf(c.m.Body, "*", c.m.BodyLine), 0, "SELECT * reads the lineage columns of %s, which this model's lineage_columns writes too: list the columns it reads (or set lineage_columns = false here)", up)
		}
		for _, col := range c.res.Columns {
			if plan.IsLineageColumn(col) {
				// (Columns are lower-cased; the body may not be.)
				errs.Add(c.m.Path, lineOf(strings.ToLower(c.m.Body), col, c.m.BodyLine), 0, "column %q is a name idemc reserves for the row lineage columns (lineage_columns writes it): give it another alias (AS source_run_id)", col)
			}
			if overCol(col) {
				reportCol(c.m.Path, lineOf(c.m.Body, col, c.m.BodyLine), "column", col, "give the column a shorter alias (AS short_name)")
			}
		}
	}
	seedSchema := p.SeedSchema
	if seedSchema == "" {
		seedSchema = tgt.Schema
	}
	for _, s := range p.Seeds {
		if over(s.Name, l.Name) {
			report(s.Path, 1, "seed name", s.Name, l.Name, "rename the file")
		}
		if n := cc.plan.Nodes[s.Name]; s.Schema != "" && over(n.Relation.Schema, l.Name) {
			report(s.Path, 1, "seed schema", n.Relation.Schema, l.Name, "set a shorter +schema for the seed")
		}
		if s.Table != nil {
			for _, col := range s.Table.Columns {
				if overCol(col.Name) {
					reportCol(s.Path, 1, "seed column", col.Name, "shorten it in the header line")
				}
			}
		}
	}
	if len(p.Seeds) > 0 && over(seedSchema, l.Name) {
		report(project.FileName, 0, "[seeds] schema", seedSchema, l.Name, "set a shorter schema")
	}
	for _, name := range sortedNames(p.Sources) {
		src := p.Sources[name]
		if over(src.Schema, l.Name) {
			report(project.FileName, src.Line, fmt.Sprintf("[sources.%s] schema", name), src.Schema, l.Name, "write the schema's name as the engine stores it")
		}
		for _, t := range src.Tables {
			if t = src.Identifier(t); over(t, l.Name) {
				report(project.FileName, src.Line, fmt.Sprintf("[sources.%s] table", name), t, l.Name, "write the table's name as the engine stores it")
			}
		}
	}
}

// lineOf is the line of the first occurrence of name in body (whose
// header is blanked, so lines are the file's), else fallback.
func lineOf(body, name string, fallback int) int {
	i := strings.Index(body, name)
	if i < 0 {
		return fallback
	}
	return strings.Count(body[:i], "\n") + 1
}

// starOverLineage names a lineage model that c, a lineage model too,
// reads with a SELECT *: the batch would have its two lineage columns
// twice (DuckDB renames the second pair, PostgreSQL refuses it). "" when
// there is none, or the analysis did not parse c.
func (cc *compilation) starOverLineage(c *compiled) string {
	if !c.m.Lineage || !c.res.Parsed || !c.res.Star || c.tpl == nil {
		return ""
	}
	for _, r := range c.tpl.Refs {
		if up := cc.models[r]; up != nil && up.m.Lineage {
			return r
		}
	}
	return ""
}
