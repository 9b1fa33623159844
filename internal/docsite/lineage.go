package docsite

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// resolveLineage turns the analysis's table names into the project's
// nodes, settles the unqualified columns of joins with the columns the
// candidates are known to have, and fills each column's used-by list. A
// column whose candidates cannot be told apart is unknown, never guessed.
func resolveLineage(s *Site, p *project.Project, pl *plan.Plan) {
	nodes := s.byName()
	tables := tableNames(p, pl)
	for _, n := range s.Nodes {
		pn := pl.Nodes[n.Name]
		if pn == nil || pn.Lineage == nil {
			continue
		}
		for i, l := range pn.Lineage {
			if i >= len(n.Columns) {
				break
			}
			col := n.Columns[i]
			var unknown []string
			if l.Unknown != "" {
				unknown = append(unknown, l.Unknown)
			}
			for _, src := range l.Sources {
				ref, why := resolveSource(src, tables, nodes)
				if why != "" {
					unknown = append(unknown, why)
					continue
				}
				col.From = append(col.From, ref)
			}
			sortRefs(col.From)
			col.From = slices.Compact(col.From)
			col.Unknown = strings.Join(unknown, "; ")
		}
	}
	for _, n := range s.Nodes {
		for _, c := range n.Columns {
			for _, f := range c.From {
				if up := nodes[f.Node]; up != nil {
					if uc := up.column(f.Column); uc != nil {
						uc.UsedBy = append(uc.UsedBy, ColumnRef{Node: n.Name, Column: c.Name})
					}
				}
			}
		}
	}
	for _, n := range s.Nodes {
		for _, c := range n.Columns {
			sortRefs(c.UsedBy)
		}
	}
}

// tableNames maps the names the analysis rendering gives relations (a
// ref's model name, source.table for a source) to nodes, or to the
// source's relation when no seed or model writes it.
func tableNames(p *project.Project, pl *plan.Plan) map[string]ColumnRef {
	byRel := map[plan.Relation]string{}
	out := map[string]ColumnRef{}
	for name, n := range pl.Nodes {
		out[strings.ToLower(name)] = ColumnRef{Node: name}
		r := n.Relation
		byRel[plan.Relation{Schema: strings.ToLower(r.Schema), Name: strings.ToLower(r.Name)}] = name
	}
	for sname, src := range p.Sources {
		for _, t := range src.Tables {
			key := strings.ToLower(sname + "." + t)
			if n, ok := byRel[plan.Relation{Schema: strings.ToLower(src.Schema), Name: strings.ToLower(t)}]; ok {
				out[key] = ColumnRef{Node: n}
			} else {
				out[key] = ColumnRef{Table: src.Schema + "." + t}
			}
		}
	}
	return out
}

// resolveSource finds the node (or outside table) of one input column; why
// says why it cannot be known.
func resolveSource(src plan.ColumnSource, tables map[string]ColumnRef, nodes map[string]*Node) (ColumnRef, string) {
	if src.Table != "" {
		ref, ok := tables[src.Table]
		if !ok {
			ref = ColumnRef{Table: src.Table} // a relation the project does not declare
		}
		ref.Column = src.Column
		return ref, ""
	}
	var have []ColumnRef
	unknownCols := false
	for _, c := range src.Candidates {
		ref, ok := tables[c]
		n := nodes[ref.Node]
		if !ok || n == nil || len(n.Columns) == 0 {
			unknownCols = true
			continue
		}
		if n.column(src.Column) != nil {
			ref.Column = src.Column
			have = append(have, ref)
		}
	}
	switch {
	case len(have) == 1 && !unknownCols:
		return have[0], ""
	case len(have) > 1:
		return ColumnRef{}, fmt.Sprintf("column %s is not qualified and %s all have it", src.Column, strings.Join(src.Candidates, ", "))
	default:
		return ColumnRef{}, fmt.Sprintf("column %s is not qualified and the columns of %s are not all known", src.Column, strings.Join(src.Candidates, ", "))
	}
}

// column finds a column by name (case-insensitive).
func (n *Node) column(name string) *Column {
	for _, c := range n.Columns {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}
