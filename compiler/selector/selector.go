// Package selector parses and evaluates dbt's node selection syntax, as used
// by --select and --exclude (DESIGN §10).
//
// A selection is a union (separated by whitespace) of intersections
// (separated by commas, no spaces) of atoms. An atom is
//
//	[@][N]+ [method:]value +[N]
//
// where value is a model or seed name, a glob over names (path.Match syntax:
// stg_*, *_daily), or * for every node; method is tag: (the node has the
// tag; globs allowed), path: (the node's file is that file or lies under
// that directory, relative to the project root; globs allowed), source:
// (it reads source raw, or raw.events), config.<key>: (its setting key has
// that value: config.materialized:table), state:modified / state:new (its
// code differs from its latest success / it never succeeded) or
// result:error|fail|skipped|warn|success (its outcome in the latest run,
// fail meaning a check failed). A leading +
// adds every ancestor, N+ the ancestors up to N levels; a trailing + adds
// every descendant, +N up to N levels; a leading @ adds every descendant and
// every ancestor of those descendants (what must be built to rebuild them).
//
// Examples: "+events_daily", "stg_users+1", "tag:daily,path:models/marts",
// "2+summary dim_users+".
package selector

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/idemc/idemc/compiler/suggest"

	"github.com/idemc/idemc/compiler/dag"
)

// Node is what selection needs to know about one model or seed.
type Node struct {
	Name string
	// Path is the node's file relative to the project root, slash-separated:
	// "models/staging/stg_events.sql".
	Path string
	Tags []string
	// Sources are the "source.table" names it reads (source:).
	Sources []string
	// Config are its settings by name (config.<key>:<value>).
	Config map[string]string
	// State is "modified" (its code differs from its latest success's),
	// "new" (it never succeeded) or "" (unchanged); Result its outcome in
	// the latest run: success, warn, error, fail (a check failed), skipped,
	// or "" (not in it).
	State, Result string
}

// Methods are the selector methods.
var methods = []string{"tag", "path", "source", "config", "state", "result"}

// States and Results are the values of state: and result:.
var (
	States  = []string{"modified", "new"}
	Results = []string{"success", "warn", "error", "fail", "skipped"}
)

// Expr is a parsed selection: a union of intersections of atoms. Create one
// with Parse.
type Expr struct {
	union [][]atom
}

// atom is one selector: a method and value, with graph operators.
type atom struct {
	col         int    // 1-based byte column of the atom in the input
	method      string // "", "tag" or "path"
	value       string
	at          bool // @: descendants and all their ancestors
	parents     bool // leading +
	parentDepth int  // N of N+; 0 = unlimited
	children    bool // trailing +
	childDepth  int  // N of +N; 0 = unlimited
}

// SyntaxError is a malformed selection.
type SyntaxError struct {
	Input string
	// Col is the 1-based byte column of the problem, within Input (1 for an
	// empty Input).
	Col int
	Msg string
}

// Error returns `selector: col N: msg in "input"`.
func (e *SyntaxError) Error() string {
	return "selector: col " + strconv.Itoa(e.Col) + ": " + e.Msg + " in " + strconv.Quote(e.Input)
}

// maxDepth bounds N in N+name and name+N.
const maxDepth = 1_000_000

// Parse parses a selection. Errors are *SyntaxError.
func Parse(s string) (*Expr, error) {
	p := &parser{s: s}
	e, err := p.parse()
	if err != nil {
		return nil, err
	}
	return e, nil
}

type parser struct {
	s string
	i int
}

// errAt returns a syntax error at byte offset off, clamped into the input.
func (p *parser) errAt(off int, msg string) *SyntaxError {
	col := min(off, len(p.s)-1) + 1
	return &SyntaxError{Input: p.s, Col: max(col, 1), Msg: msg}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isDelim reports whether c ends an atom's value.
func isDelim(c byte) bool { return isSpace(c) || c == ',' || c == '+' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// describe names the character at offset i for an error message.
func (p *parser) describe(i int) string {
	if i >= len(p.s) {
		return "end of input"
	}
	r, _ := utf8.DecodeRuneInString(p.s[i:])
	return strconv.QuoteRune(r)
}

func (p *parser) parse() (*Expr, error) {
	s := p.s
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return nil, p.errAt(i, "invalid UTF-8")
		}
		if !isSpace(s[i]) && (unicode.IsControl(r) || unicode.IsSpace(r)) {
			return nil, p.errAt(i, "unexpected character "+strconv.QuoteRune(r))
		}
		i += size
	}
	e := &Expr{}
	for {
		for p.i < len(s) && isSpace(s[p.i]) {
			p.i++
		}
		if p.i == len(s) {
			break
		}
		var group []atom
		for {
			a, err := p.atom()
			if err != nil {
				return nil, err
			}
			group = append(group, a)
			if p.i < len(s) && s[p.i] == ',' {
				comma := p.i
				p.i++
				if p.i == len(s) || isSpace(s[p.i]) || s[p.i] == ',' {
					return nil, p.errAt(comma, "expected a selector after ','")
				}
				continue
			}
			break
		}
		e.union = append(e.union, group)
	}
	if len(e.union) == 0 {
		return nil, p.errAt(0, "empty selection")
	}
	return e, nil
}

// depth reads the digits in s[from:to] as an operator depth.
func (p *parser) depth(from, to int) (int, error) {
	if to-from > 7 {
		return 0, p.errAt(from, "depth too large")
	}
	n, _ := strconv.Atoi(p.s[from:to])
	if n < 1 {
		return 0, p.errAt(from, "depth must be at least 1")
	}
	if n > maxDepth {
		return 0, p.errAt(from, "depth too large")
	}
	return n, nil
}

// atom parses one atom starting at p.i and leaves p.i after it.
func (p *parser) atom() (atom, error) {
	s := p.s
	a := atom{col: p.i + 1}
	if s[p.i] == ',' {
		return a, p.errAt(p.i, "expected a selector before ','")
	}
	if s[p.i] == '@' {
		a.at = true
		p.i++
	}
	// Leading N+ or +.
	j := p.i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '+' {
		if a.at {
			return a, p.errAt(p.i, "'@' cannot be combined with a leading '+'")
		}
		a.parents = true
		if j > p.i {
			d, err := p.depth(p.i, j)
			if err != nil {
				return a, err
			}
			a.parentDepth = d
		}
		p.i = j + 1
	}
	// The value, up to a delimiter.
	start := p.i
	for p.i < len(s) && !isDelim(s[p.i]) {
		if s[p.i] == '@' {
			return a, p.errAt(p.i, "'@' is only allowed at the start of a selector")
		}
		p.i++
	}
	value := s[start:p.i]
	if value == "" {
		if p.i < len(s) && (s[p.i] == '+' || s[p.i] == ',') {
			return a, p.errAt(p.i, "unexpected "+p.describe(p.i))
		}
		return a, p.errAt(p.i, "expected a model name, tag: or path:")
	}
	if k := strings.IndexByte(value, ':'); k >= 0 {
		a.method, value = value[:k], value[k+1:]
		if msg, at := checkMethod(a.method, value); msg != "" {
			return a, p.errAt(start+at*(k+1), msg)
		}
		if value == "" {
			return a, p.errAt(start+k, "missing value after "+strconv.Quote(a.method+":"))
		}
		if a.method == "path" {
			value = cleanPath(value)
		}
	}
	if hasMeta(value) {
		if _, err := path.Match(value, ""); err != nil {
			return a, p.errAt(start, "bad glob pattern "+strconv.Quote(value))
		}
	}
	a.value = value
	// Trailing + or +N.
	if p.i < len(s) && s[p.i] == '+' {
		a.children = true
		p.i++
		j := p.i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > p.i {
			d, err := p.depth(p.i, j)
			if err != nil {
				return a, err
			}
			a.childDepth = d
		}
		p.i = j
	}
	if p.i < len(s) && !isSpace(s[p.i]) && s[p.i] != ',' {
		return a, p.errAt(p.i, "unexpected "+p.describe(p.i))
	}
	return a, nil
}

// cleanPath normalizes a path: value to slash-separated, cleaned form.
func cleanPath(v string) string {
	v = strings.ReplaceAll(v, `\`, "/")
	v = path.Clean(v)
	return strings.TrimPrefix(v, "./")
}

// hasMeta reports whether v is a glob pattern.
func hasMeta(v string) bool { return strings.ContainsAny(v, `*?[\`) }

// String returns the expression in canonical form; Parse(e.String())
// yields an equal expression.
func (e *Expr) String() string {
	var b strings.Builder
	for i, group := range e.union {
		if i > 0 {
			b.WriteByte(' ')
		}
		for j, a := range group {
			if j > 0 {
				b.WriteByte(',')
			}
			a.write(&b)
		}
	}
	return b.String()
}

func (a atom) write(b *strings.Builder) {
	if a.at {
		b.WriteByte('@')
	}
	if a.parents {
		if a.parentDepth > 0 {
			b.WriteString(strconv.Itoa(a.parentDepth))
		}
		b.WriteByte('+')
	}
	if a.method != "" {
		b.WriteString(a.method)
		b.WriteByte(':')
	}
	b.WriteString(a.value)
	if a.children {
		b.WriteByte('+')
		if a.childDepth > 0 {
			b.WriteString(strconv.Itoa(a.childDepth))
		}
	}
}

// Select returns the sorted names of the nodes selected by include minus
// those selected by exclude. Each include (and exclude) string is a
// selection as Parse reads it; several strings are a union, as when
// --select is given several times. An empty include selects every node.
//
// g supplies the edges for the graph operators; its ids are node names. Ids
// of g that are not in nodes (sources, say) are never selected. g may be nil
// when no operator is used.
//
// Naming a model that does not exist is an error with a "did you mean"
// suggestion, and so is a glob, tag: or path: that matches nothing. Every
// error found is returned, joined.
func Select(nodes []Node, g *dag.Graph, include, exclude []string) ([]string, error) {
	if len(include) == 0 && len(exclude) == 0 { // everything: no index needed
		names := make([]string, len(nodes))
		for i, n := range nodes {
			names[i] = n.Name
		}
		slices.Sort(names)
		return slices.Compact(names), nil
	}
	ix := newIndex(nodes, g)
	var errs []error
	eval := func(sels []string) set {
		out := make(set)
		for _, s := range sels {
			e, err := Parse(s)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			for name := range ix.expr(e, &errs) {
				out[name] = struct{}{}
			}
		}
		return out
	}
	var in set
	if len(include) == 0 {
		in = make(set, len(nodes))
		for _, n := range nodes {
			in[n.Name] = struct{}{}
		}
	} else {
		in = eval(include)
	}
	out := eval(exclude)
	if len(errs) > 0 {
		if len(errs) == 1 {
			return nil, errs[0]
		}
		return nil, errors.Join(errs...)
	}
	names := make([]string, 0, len(in))
	for name := range in {
		if _, ok := out[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

type set map[string]struct{}

// index is the lookup structure Select evaluates atoms against.
type index struct {
	nodes []Node
	names []string // sorted
	known set
	g     *dag.Graph
}

func newIndex(nodes []Node, g *dag.Graph) *index {
	ix := &index{nodes: nodes, known: make(set, len(nodes)), g: g}
	for _, n := range nodes {
		ix.known[n.Name] = struct{}{}
		ix.names = append(ix.names, n.Name)
	}
	slices.Sort(ix.names)
	ix.names = slices.Compact(ix.names)
	return ix
}

// expr evaluates e, appending any error to errs.
func (ix *index) expr(e *Expr, errs *[]error) set {
	out := make(set)
	for _, group := range e.union {
		var acc set
		for _, a := range group {
			s, err := ix.atom(a)
			if err != nil {
				*errs = append(*errs, err)
				continue
			}
			if acc == nil {
				acc = s
				continue
			}
			for name := range acc {
				if _, ok := s[name]; !ok {
					delete(acc, name)
				}
			}
		}
		for name := range acc {
			out[name] = struct{}{}
		}
	}
	return out
}

// atom evaluates one atom: its method, then its graph operators.
func (ix *index) atom(a atom) (set, error) {
	base, err := ix.match(a)
	if err != nil {
		return nil, err
	}
	out := make(set, len(base))
	for name := range base {
		out[name] = struct{}{}
	}
	if a.parents {
		for name := range base {
			ix.walk(name, a.parentDepth, ix.up, out)
		}
	}
	if a.children || a.at {
		depth := a.childDepth
		if a.at {
			depth = 0
		}
		for name := range base {
			ix.walk(name, depth, ix.down, out)
		}
	}
	if a.at {
		desc := make([]string, 0, len(out))
		for name := range out {
			desc = append(desc, name)
		}
		for _, name := range desc {
			ix.walk(name, 0, ix.up, out)
		}
	}
	// Graph ids that are not nodes (sources) are never selected.
	for name := range out {
		if _, ok := ix.known[name]; !ok {
			delete(out, name)
		}
	}
	return out, nil
}

func (ix *index) up(id string) []string {
	if ix.g == nil {
		return nil
	}
	return ix.g.Upstream(id)
}

func (ix *index) down(id string) []string {
	if ix.g == nil {
		return nil
	}
	return ix.g.Downstream(id)
}

// walk adds to out the nodes reachable from start over next, up to depth
// levels (0: unlimited).
func (ix *index) walk(start string, depth int, next func(string) []string, out set) {
	seen := set{start: {}}
	frontier := []string{start}
	for level := 1; len(frontier) > 0 && (depth == 0 || level <= depth); level++ {
		var following []string
		for _, id := range frontier {
			for _, w := range next(id) {
				if _, ok := seen[w]; ok {
					continue
				}
				seen[w] = struct{}{}
				out[w] = struct{}{}
				following = append(following, w)
			}
		}
		frontier = following
	}
}

// checkMethod says what is wrong with an atom's method and value ("" when
// nothing), and whether the error is at the value (1) or the method (0).
func checkMethod(m, value string) (string, int) {
	switch {
	case m == "tag", m == "path", m == "source":
	case m == "config" || m == "config.":
		return "config needs a setting: config.<key>:<value>, such as config.materialized:table", 0
	case strings.HasPrefix(m, "config."):
	case m == "state" && slices.Contains(States, value), m == "result" && slices.Contains(Results, value):
	case m == "state" || m == "result":
		valid := States
		if m == "result" {
			valid = Results
		}
		return fmt.Sprintf("%s:%s is not a %s selector (want one of %s)", m, value, m, strings.Join(valid, ", ")), 1
	default:
		msg := "unknown selector method " + strconv.Quote(m) + " (want tag:, path:, source:, config.<key>:, state: or result:)"
		if sg := suggest.Closest(m, methods); sg != "" {
			msg = "unknown selector method " + strconv.Quote(m) + " (did you mean " + strconv.Quote(sg+":") + "?)"
		}
		return msg, 0
	}
	return "", 0
}
