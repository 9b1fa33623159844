package analyze

// parse.go (with lineage.go, which follows columns) is the only code that reads the TiDB
// parser's AST. It turns one rendered SELECT into
// facts: plain data about function calls, window functions, LIMIT clauses and the output
// columns, which lint.go checks without knowing anything about the parser's AST.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value expressions for the parser

	"github.com/idemc/idemc/plan"
)

// sqlMode is ANSI_QUOTES,PIPES_AS_CONCAT spelled out: the combined "ANSI" mode does not
// expand in the parser.
var sqlMode = func() mysql.SQLMode {
	m, err := mysql.GetSQLMode("ANSI_QUOTES,PIPES_AS_CONCAT")
	if err != nil {
		panic("analyze: sql mode: " + err.Error())
	}
	return m
}()

// Parser wraps one TiDB parser; NOT safe for concurrent use: one per goroutine.
type Parser struct {
	p *parser.Parser
	c collector
}

// NewParser returns a parser in ANSI_QUOTES,PIPES_AS_CONCAT mode.
func NewParser() *Parser {
	p := &Parser{}
	p.reset()
	return p
}

func (p *Parser) reset() {
	p.p = parser.New()
	p.p.SetSQLMode(sqlMode)
}

// facts is what the rules need from one parsed SELECT. Offsets are byte offsets into the SQL
// text; -1 (or an offset that does not hold the expected word) means "unknown".
type facts struct {
	calls   []funcCall   // every function call, anywhere (CTEs and subqueries too)
	windows []windowCall // every order-dependent window function
	limits  []limitUse   // every LIMIT clause, in the text order of their LIMIT keywords

	columns   []string             // output names of the first top-level branch ("*" / "t.*" for wildcards)
	lineage   []plan.ColumnLineage // per output column; nil when the first branch has a wildcard
	star      bool                 // some top-level branch selects * or t.*
	firstStar bool                 // the first top-level branch (the one columns describe) has a wildcard
	starOff   int                  // offset of the first top-level wildcard, -1 if unknown

	// keyFeeds maps a requested key column to the order-dependent window functions whose
	// value flows into it, following CTEs and derived tables.
	keyFeeds map[string][]windowCall
}

type funcCall struct {
	name  string // lower case
	nargs int
	off   int
}

type windowCall struct {
	name    string // lower case
	off     int
	ordered bool // the OVER clause (or the named window it uses) has ORDER BY
}

type limitUse struct {
	ordered bool // the same query block has ORDER BY
	zero    bool // LIMIT 0: no rows, whatever the order
}

// parseError is why and where the parser gave up; off is -1 when the place is unknown. A
// syntax error has no reason: the caller describes the text at off.
type parseError struct {
	off    int
	reason string
	syntax bool
}

// orderDependent are the window functions whose result depends on the order of rows in the
// window: without ORDER BY that order is arbitrary, and a key computed from them changes when
// the set of rows does.
var orderDependent = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "ntile": true,
	"lag": true, "lead": true, "first_value": true, "last_value": true, "nth_value": true,
}

// parse parses sql (one SELECT) and extracts its facts. keys are the lower-case column names
// whose lineage to order-dependent window functions is wanted; lineage asks for every output
// column's inputs too. The parser never panics out of
// here: a panic becomes a parseError and the parser is replaced.
func (p *Parser) parse(sql string, keys []string, lineage bool) (f *facts, perr *parseError) {
	defer func() {
		if r := recover(); r != nil {
			p.reset()
			p.c = collector{}
			f, perr = nil, &parseError{off: -1, reason: fmt.Sprintf("parser failure: %v", r)}
		}
	}()
	stmts, _, err := p.p.ParseSQL(sql)
	if err != nil {
		return nil, syntaxError(sql, err.Error())
	}
	switch len(stmts) {
	case 0:
		return nil, &parseError{off: -1, reason: "no SQL statement"}
	case 1:
	default:
		return nil, &parseError{off: -1, reason: strconv.Itoa(len(stmts)) + " statements; a model is one SELECT"}
	}
	root := stmts[0]
	switch root.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
	default:
		return nil, &parseError{off: -1, reason: "not a SELECT statement"}
	}

	f = &facts{starOff: -1}
	c := &p.c
	c.f = f
	c.blocks = c.blocks[:0]
	c.seen = c.seen[:0]
	root.Accept(c)
	c.f = nil
	output(root, f)
	if lineage {
		f.lineage = columnLineage(root, f.columns, f.firstStar)
	}
	if len(f.windows) > 0 && len(keys) > 0 {
		keyLineage(root, f, keys)
	}
	return f, nil
}

// collector walks the whole statement once.
type collector struct {
	f      *facts
	blocks []*ast.SelectStmt // enclosing query blocks, innermost last (for named windows)
	seen   []*ast.Limit
}

func (c *collector) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SelectStmt:
		c.blocks = append(c.blocks, x)
	case *ast.FuncCallExpr:
		c.f.calls = append(c.f.calls, funcCall{name: x.FnName.L, nargs: len(x.Args), off: x.OriginTextPosition()})
	case *ast.WindowFuncExpr:
		name := strings.ToLower(x.Name)
		if orderDependent[name] {
			c.f.windows = append(c.f.windows, windowCall{name: name, off: x.OriginTextPosition(), ordered: c.ordered(&x.Spec)})
		}
	}
	return n, false
}

// Leave records LIMIT clauses: a block is left after everything nested in it, and its LIMIT
// is the last clause of its text, so leave order is the text order of the LIMIT keywords.
func (c *collector) Leave(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SelectStmt:
		if len(c.blocks) > 0 {
			c.blocks = c.blocks[:len(c.blocks)-1]
		}
		c.limit(x.Limit, x.OrderBy != nil)
	case *ast.SetOprStmt:
		c.limit(x.Limit, x.OrderBy != nil)
	case *ast.SetOprSelectList:
		c.limit(x.Limit, x.OrderBy != nil)
	}
	return n, true
}

func (c *collector) limit(l *ast.Limit, ordered bool) {
	if l == nil {
		return
	}
	for _, s := range c.seen {
		if s == l {
			return
		}
	}
	c.seen = append(c.seen, l)
	zero := false
	if v, ok := l.Count.(ast.ValueExpr); ok {
		zero = fmt.Sprint(v.GetValue()) == "0"
	}
	c.f.limits = append(c.f.limits, limitUse{ordered: ordered, zero: zero})
}

// ordered reports whether a window spec orders its rows, following named windows
// (OVER w, OVER (w ...), WINDOW w2 AS (w1 ...)) of the innermost query block.
func (c *collector) ordered(spec *ast.WindowSpec) bool {
	for range 16 {
		if spec.OrderBy != nil {
			return true
		}
		ref := spec.Ref.L
		if spec.OnlyAlias {
			ref = spec.Name.L
		}
		if ref == "" || len(c.blocks) == 0 {
			return false
		}
		var next *ast.WindowSpec
		specs := c.blocks[len(c.blocks)-1].WindowSpecs
		for i := range specs {
			if specs[i].Name.L == ref && &specs[i] != spec {
				next = &specs[i]
				break
			}
		}
		if next == nil {
			return true // unknown window name: the engine rejects it; do not guess
		}
		spec = next
	}
	return true
}

// branches calls fn for each query block of a set operation, in order (one for a SELECT).
func branches(n ast.Node, fn func(*ast.SelectStmt)) {
	switch x := n.(type) {
	case *ast.SelectStmt:
		fn(x)
	case *ast.SetOprStmt:
		if x.SelectList != nil {
			branches(x.SelectList, fn)
		}
	case *ast.SetOprSelectList:
		for _, s := range x.Selects {
			branches(s, fn)
		}
	}
}

// output fills the output columns from the first branch and the wildcard facts from all.
func output(root ast.Node, f *facts) {
	first := true
	branches(root, func(s *ast.SelectStmt) {
		var cols []string
		star := false
		switch s.Kind {
		case ast.SelectStmtKindTable:
			star = true
		case ast.SelectStmtKindValues:
			if len(s.Lists) > 0 && s.Lists[0] != nil {
				cols = make([]string, len(s.Lists[0].Values))
			}
		default:
			if s.Fields != nil {
				cols = make([]string, 0, len(s.Fields.Fields))
				for _, fld := range s.Fields.Fields {
					if fld.WildCard != nil {
						star = true
						if f.starOff < 0 {
							f.starOff = fld.Offset
						}
					}
					// Clone: the parser's names point into the whole SQL text,
					// which the result would otherwise keep alive.
					cols = append(cols, strings.Clone(fieldName(fld)))
				}
			}
		}
		if first {
			if cols == nil {
				cols = []string{}
			}
			f.columns = cols
			f.firstStar = star
			first = false
		}
		f.star = f.star || star
	})
	if f.columns == nil {
		f.columns = []string{}
	}
}

// fieldName is the output name of a SELECT list item: its alias, the column name of a plain
// column reference, "*" or "t.*" for wildcards, "" for an unnamed expression.
func fieldName(f *ast.SelectField) string {
	if w := f.WildCard; w != nil {
		switch {
		case w.Table.O == "":
			return "*"
		case w.Schema.O == "":
			return strings.ToLower(w.Table.O) + ".*"
		default:
			return strings.ToLower(w.Schema.O) + "." + strings.ToLower(w.Table.O) + ".*"
		}
	}
	if f.AsName.O != "" {
		return strings.ToLower(f.AsName.O)
	}
	if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok && cn.Name != nil {
		return strings.ToLower(cn.Name.Name.O)
	}
	return ""
}

// keyLineage finds, for each key that is an output column, the order-dependent window
// functions feeding it.
func keyLineage(root ast.Node, f *facts, keys []string) {
	for _, k := range keys {
		if k == "" {
			continue
		}
		idx := -1
		for i, c := range f.columns {
			if c == k {
				idx = i
				break
			}
		}
		if idx < 0 && !f.firstStar {
			continue
		}
		t := tracer{}
		if f.firstStar {
			idx = -1
		}
		t.column(root, nil, idx, k)
		if len(t.out) > 0 {
			if f.keyFeeds == nil {
				f.keyFeeds = map[string][]windowCall{}
			}
			f.keyFeeds[k] = t.out
		}
	}
}

// scope is the CTEs visible at one point of the statement.
type scope struct {
	ctes   map[string]*cteDef
	parent *scope
}

type cteDef struct {
	q    ast.Node
	cols []string // the CTE's column list, WITH x(a, b) AS (...); nil when absent
	sc   *scope
}

func (s *scope) lookup(name string) *cteDef {
	for ; s != nil; s = s.parent {
		if d := s.ctes[name]; d != nil {
			return d
		}
	}
	return nil
}

func withScope(w *ast.WithClause, parent *scope) *scope {
	if w == nil || len(w.CTEs) == 0 {
		return parent
	}
	sc := &scope{ctes: make(map[string]*cteDef, len(w.CTEs)), parent: parent}
	for _, cte := range w.CTEs {
		if cte == nil || cte.Query == nil || cte.Query.Query == nil {
			continue
		}
		d := &cteDef{q: cte.Query.Query, sc: sc}
		if len(cte.ColNameList) > 0 {
			d.cols = make([]string, len(cte.ColNameList))
			for i, c := range cte.ColNameList {
				d.cols[i] = c.L
			}
		}
		sc.ctes[cte.Name.L] = d
	}
	return sc
}

// tracer follows one output column back through CTEs and derived tables and collects the
// order-dependent window functions it is computed from. steps bounds the work (recursive CTEs).
type tracer struct {
	steps int
	out   []windowCall
}

const maxTraceSteps = 256

// column traces the column at index idx (when >= 0 and the block has no wildcard) or named
// name of the result set n.
func (t *tracer) column(n ast.Node, sc *scope, idx int, name string) {
	if t.steps++; t.steps > maxTraceSteps {
		return
	}
	switch x := n.(type) {
	case *ast.SelectStmt:
		t.selectColumn(x, withScope(x.With, sc), idx, name)
	case *ast.SetOprStmt:
		if x.SelectList != nil {
			t.column(x.SelectList, withScope(x.With, sc), idx, name)
		}
	case *ast.SetOprSelectList:
		sc = withScope(x.With, sc)
		for i, b := range x.Selects {
			if i == 0 {
				t.column(b, sc, idx, name)
			} else if idx >= 0 {
				t.column(b, sc, idx, "") // later branches line up by position only
			}
		}
	}
}

func (t *tracer) selectColumn(s *ast.SelectStmt, sc *scope, idx int, name string) {
	if s.Fields == nil {
		return
	}
	fields := s.Fields.Fields
	star := false
	for _, f := range fields {
		if f.WildCard != nil {
			star = true
			break
		}
	}
	if !star && idx >= 0 {
		if idx < len(fields) {
			t.expr(fields[idx].Expr, s, sc)
		}
		return
	}
	if name == "" {
		return
	}
	for _, f := range fields {
		if f.WildCard == nil && fieldName(f) == name {
			t.expr(f.Expr, s, sc)
			return
		}
	}
	for _, f := range fields {
		if f.WildCard != nil && s.From != nil {
			t.source(s.From.TableRefs, sc, f.WildCard.Table.L, name)
		}
	}
}

func (t *tracer) expr(e ast.ExprNode, s *ast.SelectStmt, sc *scope) {
	if e == nil {
		return
	}
	e.Accept(&exprWalker{t: t, s: s, sc: sc})
}

type exprWalker struct {
	t  *tracer
	s  *ast.SelectStmt
	sc *scope
}

func (w *exprWalker) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		return n, true
	case *ast.WindowFuncExpr:
		name := strings.ToLower(x.Name)
		if orderDependent[name] {
			off := x.OriginTextPosition()
			for _, o := range w.t.out {
				if o.off == off && o.name == name {
					return n, false
				}
			}
			w.t.out = append(w.t.out, windowCall{name: name, off: off})
		}
	case *ast.ColumnNameExpr:
		if x.Name != nil && w.s.From != nil {
			w.t.source(w.s.From.TableRefs, w.sc, x.Name.Table.L, x.Name.Name.L)
		}
	}
	return n, false
}

func (w *exprWalker) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// source traces column col (qualified by qual when not "") into the FROM clause.
func (t *tracer) source(n ast.ResultSetNode, sc *scope, qual, col string) {
	if t.steps++; t.steps > maxTraceSteps {
		return
	}
	switch x := n.(type) {
	case *ast.Join:
		if x.Left != nil {
			t.source(x.Left, sc, qual, col)
		}
		if x.Right != nil {
			t.source(x.Right, sc, qual, col)
		}
	case *ast.TableSource:
		alias := x.AsName.L
		switch src := x.Source.(type) {
		case *ast.TableName:
			if alias == "" {
				alias = src.Name.L
			}
			if (qual != "" && qual != alias) || src.Schema.L != "" {
				return
			}
			if d := sc.lookup(src.Name.L); d != nil {
				if d.cols != nil {
					for i, c := range d.cols {
						if c == col {
							t.column(d.q, d.sc, i, "")
							return
						}
					}
					return
				}
				t.column(d.q, d.sc, -1, col)
			}
		case *ast.SelectStmt, *ast.SetOprStmt:
			if qual != "" && qual != alias {
				return
			}
			t.column(src, sc, -1, col)
		case *ast.Join:
			t.source(src, sc, qual, col)
		}
	}
}

// syntaxError turns a TiDB parser error into a reason and a byte offset in sql.
//
// The scanner reports `line L column C near "TEXT" ` where TEXT is sql from the offending
// token to the end (cut at 2048 bytes and then followed by "(total length N)"), so the token's
// offset is exact; an unclosed comment is reported as `near '/* ...' at line L`.
func syntaxError(sql, msg string) *parseError {
	const near = `near "`
	if strings.HasPrefix(msg, "line ") {
		if i := strings.Index(msg, near); i >= 0 {
			rest := msg[i+len(near):]
			off := -1
			const total = "(total length "
			if j := strings.LastIndex(rest, total); j >= 0 && strings.HasSuffix(rest, ")") {
				if n, err := strconv.Atoi(rest[j+len(total) : len(rest)-1]); err == nil && n >= 0 && n <= len(sql) {
					off = len(sql) - n
				}
			} else if t := strings.TrimSuffix(rest, `" `); len(t) < len(rest) && strings.HasSuffix(sql, t) {
				off = len(sql) - len(t)
			}
			if off < 0 {
				off = lineColumnOffset(sql, msg)
			}
			if off >= 0 {
				return &parseError{off: off, syntax: true}
			}
		}
	}
	if strings.HasPrefix(msg, "near '") {
		if j := strings.LastIndex(msg, "' at line "); j > len("near '") {
			text := msg[len("near '"):j]
			if k := strings.Index(sql, text); k >= 0 {
				if strings.HasPrefix(text, "/*") {
					return &parseError{off: k, reason: "unterminated comment"}
				}
				return &parseError{off: k, syntax: true}
			}
		}
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return &parseError{off: lineColumnOffset(sql, msg), reason: msg}
}

// lineColumnOffset reads "line L column C" from a scanner error (the scanner's position after
// the offending token; columns count from 0 on line 1 and from 1 on later lines).
func lineColumnOffset(sql, msg string) int {
	var line, col int
	if _, err := fmt.Sscanf(msg, "line %d column %d", &line, &col); err != nil || line < 1 || col < 0 {
		return -1
	}
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(sql[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	if line > 1 && col > 0 {
		col--
	}
	off += col
	if off > len(sql) {
		return -1
	}
	return off
}
