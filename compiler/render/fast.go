package render

// fast.go renders, without the template engine, the templates most models
// are: SQL text with expressions of the forms
//
//	{{ start }}                 start, end, partition, as_of, watermark_start, watermark_end, this
//	{{ ref("m") }}              ref, source, var, surrogate_key with literal arguments
//	{{ cents("t.amount") }}     a macro with positional string or list-of-string arguments
//
// Lexing and parsing a model with gonja was the largest cost of compiling it
// (gonja allocates a token per few bytes and compiles two regular
// expressions per template), and running every macro file for every model
// the next; a template of that shape is split once
// into text and expressions and rendered by calling the same functions and
// macros gonja would call, in the same order, so the output, the markers and
// the recorded refs are the same. Anything else — a {% block %}, a {# comment
// #}, whitespace control, a filter, a number, a keyword argument, a carriage
// return — and any error while rendering fall back to gonja, which then gives
// its own output or error message.

import (
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// segment is text followed by an expression (x is nil for the last text).
type segment struct {
	text string
	x    *expr
}

type exprKind uint8

const (
	xFixed exprKind = iota // a fixed variable: start, end, …
	xRef
	xSource
	xVar
	xSurrogateKey
	xMacro
)

type expr struct {
	kind  exprKind
	fixed int    // xFixed: slot number
	name  string // xMacro: the macro
	args  []arg
}

// arg is a literal string or a list of literal strings.
type arg struct {
	s      string
	list   []string
	isList bool
}

// value is the argument as gonja evaluates the literal.
func (a arg) value() *exec.Value {
	if !a.isList {
		return exec.AsValue(a.s)
	}
	vs := make(exec.ValuesList, len(a.list))
	for i, s := range a.list {
		vs[i] = exec.AsValue(s)
	}
	return exec.AsValue(vs)
}

// parseFast splits text into segments, or reports that the template needs
// the template engine.
func (e *Env) parseFast(text string) ([]segment, bool) {
	if strings.IndexByte(text, '\r') >= 0 { // gonja rewrites line ends
		return nil, false
	}
	var segs []segment
	start := 0 // start of the current text
	i := 0
	for {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 || i+j+1 >= len(text) {
			break
		}
		i += j
		switch text[i+1] {
		case '%', '#':
			return nil, false
		case '{':
			x, end, ok := e.parseExpr(text, i+2)
			if !ok {
				return nil, false
			}
			segs = append(segs, segment{text: text[start:i], x: x})
			i, start = end, end
		default:
			i++
		}
	}
	return append(segs, segment{text: text[start:]}), true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNameByte(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// parseExpr reads `name` or `name(args)` and the closing }} from s[i:].
func (e *Env) parseExpr(s string, i int) (*expr, int, bool) {
	i = skipSpace(s, i)
	if i >= len(s) || !isNameStart(s[i]) {
		return nil, 0, false
	}
	n := i
	for i < len(s) && isNameByte(s[i]) {
		i++
	}
	name := s[n:i]
	var args []arg
	call := i < len(s) && s[i] == '('
	if call {
		var ok bool
		if args, i, ok = parseArgs(s, i+1); !ok {
			return nil, 0, false
		}
	}
	i = skipSpace(s, i)
	if !strings.HasPrefix(s[i:], "}}") {
		return nil, 0, false
	}
	x, ok := e.resolve(name, call, args)
	return x, i + 2, ok
}

// resolve decides what a name means, as the template context would: macros
// first (they are defined over the built-ins), then the built-ins. Calls
// whose arguments the built-in would refuse are left to gonja.
func (e *Env) resolve(name string, call bool, args []arg) (*expr, bool) {
	if e.macroNames[name] {
		return &expr{kind: xMacro, name: name, args: args}, call
	}
	strs := func(n int) bool {
		if len(args) != n {
			return false
		}
		for _, a := range args {
			if a.isList {
				return false
			}
		}
		return true
	}
	switch name {
	case "ref":
		return &expr{kind: xRef, args: args}, call && strs(1)
	case "source":
		return &expr{kind: xSource, args: args}, call && strs(2)
	case "var":
		return &expr{kind: xVar, args: args}, call && (strs(1) || strs(2))
	case "surrogate_key":
		return &expr{kind: xSurrogateKey, args: args}, call && len(args) == 1
	}
	for k, v := range fixedVars {
		if v == name {
			return &expr{kind: xFixed, fixed: k}, !call
		}
	}
	return nil, false
}

// parseArgs reads literal arguments up to the closing parenthesis.
func parseArgs(s string, i int) ([]arg, int, bool) {
	var args []arg
	i = skipSpace(s, i)
	if i < len(s) && s[i] == ')' {
		return args, i + 1, true
	}
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return nil, 0, false
		}
		var a arg
		if s[i] == '[' {
			a.isList = true
			i = skipSpace(s, i+1)
			if i < len(s) && s[i] == ']' {
				i++
			} else {
				for {
					str, end, ok := parseString(s, i)
					if !ok {
						return nil, 0, false
					}
					a.list = append(a.list, str)
					i = skipSpace(s, end)
					if i < len(s) && s[i] == ',' {
						i = skipSpace(s, i+1)
						continue
					}
					if i < len(s) && s[i] == ']' {
						i++
						break
					}
					return nil, 0, false
				}
			}
		} else {
			str, end, ok := parseString(s, i)
			if !ok {
				return nil, 0, false
			}
			a.s, i = str, end
		}
		args = append(args, a)
		i = skipSpace(s, i)
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		if i < len(s) && s[i] == ')' {
			return args, i + 1, true
		}
		return nil, 0, false
	}
}

// parseString reads a quoted string without escapes or line breaks.
func parseString(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '"' && s[i] != '\'' {
		return "", 0, false
	}
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case q:
			return s[i+1 : j], j + 1, true
		case '\\', '\n':
			return "", 0, false
		}
	}
	return "", 0, false
}

// renderFast renders a split template; ok is false when gonja must do it.
func (e *Env) renderFast(t *Template, c *Context) (r *Rendered, ok bool) {
	extra := 0
	for _, sg := range t.fast {
		if sg.x != nil && sg.x.kind != xFixed {
			extra++ // ref, source and surrogate_key make a slot; a macro, usually one
		}
	}
	s := e.newState(c, extra)
	w, err := e.acquire(s)
	if err != nil {
		return nil, false
	}
	defer func() {
		if p := recover(); p != nil {
			r, ok = nil, false // the worker is dropped: it may be half way through something
			return
		}
		e.release(w)
	}()
	n := len(t.text)
	for _, sg := range t.fast {
		if sg.x != nil {
			n += 8
		}
	}
	var b strings.Builder
	b.Grow(n)
	for _, sg := range t.fast {
		b.WriteString(sg.text)
		if sg.x == nil {
			continue
		}
		v, ok := w.eval(sg.x)
		if !ok {
			return nil, false
		}
		b.WriteString(v)
	}
	r = s.finish(b.String())
	if len(s.errs) > 0 {
		return nil, false
	}
	return r, true
}

// eval evaluates one expression as gonja would.
func (w *worker) eval(x *expr) (string, bool) {
	s := w.cur
	switch x.kind {
	case xFixed:
		return fixedMarkers[x.fixed], true
	case xRef:
		return s.ref(x.args[0].s), true
	case xSource:
		return s.source(x.args[0].s, x.args[1].s), true
	case xVar:
		if len(x.args) == 1 {
			return printed(s.variable(x.args[0].s)), true
		}
		return printed(s.variable(x.args[0].s, x.args[1].s)), true
	case xSurrogateKey:
		return s.surrogateKey(x.args[0].value().Interface()), true
	case xMacro:
		v, found := w.ctx.Get(x.name)
		m, isMacro := v.(exec.Macro)
		if !found || !isMacro {
			return "", false
		}
		params := &exec.VarArgs{Args: make([]*exec.Value, len(x.args)), KwArgs: map[string]*exec.Value{}}
		for i, a := range x.args {
			params.Args[i] = a.value()
		}
		res := m(params)
		if res == nil || !res.Val.IsValid() || res.IsError() {
			return "", false
		}
		return res.String(), true
	}
	return "", false
}
