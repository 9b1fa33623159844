package analyze

// lineage.go follows each output column of the top-level SELECT back to the columns of the
// relations it reads (DESIGN §6: the docs site's column lineage). Like parse.go it reads the
// parser's AST, and it hands back only idemc's own plan.ColumnLineage. A column it cannot
// follow is marked with the reason, never guessed.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/idemc/idemc/plan"
)

// maxLineageSteps bounds the work for one column (recursive CTEs refer to themselves).
const maxLineageSteps = 4096

// columnLineage traces every output column of root; nil when the first branch selects a
// wildcard, whose columns the parser does not know.
func columnLineage(root ast.Node, cols []string, firstStar bool) []plan.ColumnLineage {
	if firstStar {
		return nil
	}
	out := make([]plan.ColumnLineage, len(cols))
	for i, c := range cols {
		l := &lineager{}
		l.column(root, nil, nil, i, c)
		out[i] = l.result(c)
	}
	return out
}

// lineager collects the inputs of one output column.
type lineager struct {
	steps   int
	srcs    []plan.ColumnSource
	unknown []string
}

// block is a query block being traced, and the block a subquery expression is nested in (for
// correlated column names its own FROM clause does not bind).
type block struct {
	s     *ast.SelectStmt
	sc    *scope
	outer *block
	srcs  []fromSource // its FROM clause, read on first use
	read  bool
}

// fromSource is one relation of a FROM clause.
type fromSource struct {
	alias string
	table string   // a base table: "name" or "schema.name"
	cte   *cteDef  // a CTE
	query ast.Node // a derived table
	sc    *scope   // the scope the derived table is read in
	cols  []string // the CTE's or derived table's output names; nil when unknown (a wildcard)
}

func (l *lineager) unknownf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !slices.Contains(l.unknown, msg) {
		l.unknown = append(l.unknown, msg)
	}
}

func (l *lineager) tooDeep() bool {
	if l.steps++; l.steps > maxLineageSteps {
		l.unknownf("the query is too deep to follow")
		return true
	}
	return false
}

// column traces the column at index idx (when >= 0 and the block lists no wildcard) or named
// name of the result set n.
func (l *lineager) column(n ast.Node, sc *scope, outer *block, idx int, name string) {
	if l.tooDeep() {
		return
	}
	switch x := n.(type) {
	case *ast.SelectStmt:
		l.selectColumn(&block{s: x, sc: withScope(x.With, sc), outer: outer}, idx, name)
	case *ast.SetOprStmt:
		if x.SelectList != nil {
			l.column(x.SelectList, withScope(x.With, sc), outer, idx, name)
		}
	case *ast.SetOprSelectList:
		sc = withScope(x.With, sc)
		for i, b := range x.Selects {
			if i == 0 || idx >= 0 { // later branches line up by position only
				l.column(b, sc, outer, idx, name)
			}
		}
	default:
		l.unknownf("%T is not read", n)
	}
}

func (l *lineager) selectColumn(b *block, idx int, name string) {
	s := b.s
	switch s.Kind {
	case ast.SelectStmtKindValues:
		return // literals
	case ast.SelectStmtKindTable:
		l.unknownf("TABLE statements are not read")
		return
	}
	if s.Fields == nil {
		return
	}
	fields := s.Fields.Fields
	star := slices.ContainsFunc(fields, func(f *ast.SelectField) bool { return f.WildCard != nil })
	if !star && idx >= 0 {
		if idx < len(fields) {
			l.expr(fields[idx].Expr, b)
		}
		return
	}
	if name == "" {
		l.unknownf("an unnamed column is read by name")
		return
	}
	for _, f := range fields {
		if f.WildCard == nil && fieldName(f) == name {
			l.expr(f.Expr, b)
			return
		}
	}
	for _, f := range fields {
		if f.WildCard != nil {
			l.ref(&block{s: s, sc: b.sc}, f.WildCard.Table.L, name)
			return
		}
	}
	l.unknownf("column %s is not in the SELECT list", name)
}

func (l *lineager) expr(e ast.ExprNode, b *block) {
	if e != nil {
		e.Accept(&lineageWalker{l: l, b: b})
	}
}

type lineageWalker struct {
	l *lineager
	b *block
}

func (w *lineageWalker) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		w.l.column(x.Query, w.b.sc, w.b, 0, "")
		return n, true
	case *ast.ColumnNameExpr:
		if x.Name != nil {
			w.l.ref(w.b, x.Name.Table.L, x.Name.Name.L)
		}
	}
	return n, false
}

func (w *lineageWalker) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// ref binds the column col (qualified by the table alias qual when not "") in the FROM clause
// of b, or of the blocks b is nested in.
func (l *lineager) ref(b *block, qual, col string) {
	for blk := b; blk != nil; blk = blk.outer {
		srcs := fromSources(blk)
		if qual != "" {
			for _, s := range srcs {
				if s.alias == qual {
					l.bind(s, col)
					return
				}
			}
			continue
		}
		if len(srcs) == 1 {
			l.bind(srcs[0], col)
			return
		}
		var known, opaque []fromSource
		for _, s := range srcs {
			switch {
			case s.table == "" && s.cols != nil:
				if slices.Contains(s.cols, col) {
					known = append(known, s)
				}
			default:
				opaque = append(opaque, s)
			}
		}
		switch {
		case len(known)+len(opaque) == 0:
			continue // not here: a correlated name of an outer block
		case len(known)+len(opaque) == 1:
			l.bind(append(known, opaque...)[0], col)
		case len(known) == 0 && !slices.ContainsFunc(opaque, func(s fromSource) bool { return s.table == "" }):
			// Only tables: which one has the column is known to the catalog, not the SQL.
			var tables []string
			for _, s := range opaque {
				tables = append(tables, s.table)
			}
			slices.Sort(tables)
			for i := range tables {
				tables[i] = strings.Clone(tables[i]) // the parser's names point into the SQL text
			}
			l.srcs = append(l.srcs, plan.ColumnSource{Column: strings.Clone(col), Candidates: slices.Compact(tables)})
		default:
			l.unknownf("column %s is not qualified and may come from %s", col, aliases(append(known, opaque...)))
		}
		return
	}
	if qual != "" {
		l.unknownf("column %s.%s names no table of the FROM clause", qual, col)
	} else {
		l.unknownf("column %s is read from no table", col)
	}
}

func aliases(srcs []fromSource) string {
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = s.alias
	}
	return strings.Join(names, " or ")
}

// bind follows col into one relation of a FROM clause.
func (l *lineager) bind(s fromSource, col string) {
	switch {
	case s.table != "":
		l.srcs = append(l.srcs, plan.ColumnSource{Table: strings.Clone(s.table), Column: strings.Clone(col)})
	case s.cte != nil && s.cte.cols != nil:
		if i := slices.Index(s.cte.cols, col); i >= 0 {
			l.column(s.cte.q, s.cte.sc, nil, i, "")
		} else {
			l.unknownf("column %s is not a column of %s", col, s.alias)
		}
	case s.cte != nil:
		l.column(s.cte.q, s.cte.sc, nil, -1, col)
	default:
		l.column(s.query, s.sc, nil, -1, col)
	}
}

// fromSources lists the relations of b's FROM clause, joins flattened
// (once per block: a SELECT list names them many times).
func fromSources(b *block) []fromSource {
	if !b.read {
		b.srcs, b.read = readFrom(b), true
	}
	return b.srcs
}

func readFrom(b *block) []fromSource {
	if b.s.From == nil || b.s.From.TableRefs == nil {
		return nil
	}
	var out []fromSource
	var walk func(n ast.ResultSetNode)
	walk = func(n ast.ResultSetNode) {
		switch x := n.(type) {
		case *ast.Join:
			if x.Left != nil {
				walk(x.Left)
			}
			if x.Right != nil {
				walk(x.Right)
			}
		case *ast.TableSource:
			alias := x.AsName.L
			switch src := x.Source.(type) {
			case *ast.TableName:
				if alias == "" {
					alias = src.Name.L
				}
				if d := b.sc.lookup(src.Name.L); d != nil && src.Schema.L == "" {
					cols := d.cols
					if cols == nil {
						cols = outputNames(d.q)
					}
					out = append(out, fromSource{alias: alias, cte: d, cols: cols})
					return
				}
				table := src.Name.L
				if src.Schema.L != "" {
					table = src.Schema.L + "." + table
				}
				out = append(out, fromSource{alias: alias, table: table})
			case *ast.SelectStmt, *ast.SetOprStmt:
				out = append(out, fromSource{alias: alias, query: src, sc: b.sc, cols: outputNames(src)})
			case *ast.Join:
				walk(src)
			}
		}
	}
	walk(b.s.From.TableRefs)
	return out
}

// outputNames are the column names of a query's first branch; nil when it has a wildcard.
func outputNames(n ast.Node) []string {
	var cols []string
	first, star := true, false
	branches(n, func(s *ast.SelectStmt) {
		if !first {
			return
		}
		first = false
		if s.Fields == nil {
			star = true
			return
		}
		for _, f := range s.Fields.Fields {
			if f.WildCard != nil {
				star = true
			}
			cols = append(cols, fieldName(f))
		}
	})
	if star || first {
		return nil
	}
	return cols
}

// result is the traced column, its sources sorted and distinct.
func (l *lineager) result(col string) plan.ColumnLineage {
	key := func(s plan.ColumnSource) string {
		return s.Table + "\x00" + s.Column + "\x00" + strings.Join(s.Candidates, ",")
	}
	slices.SortFunc(l.srcs, func(a, b plan.ColumnSource) int { return cmp.Compare(key(a), key(b)) })
	l.srcs = slices.CompactFunc(l.srcs, func(a, b plan.ColumnSource) bool { return key(a) == key(b) })
	return plan.ColumnLineage{Column: col, Sources: l.srcs, Unknown: strings.Join(l.unknown, "; ")}
}
