package project

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// kwarg is one keyword argument of a config() call.
type kwarg struct {
	name string
	val  any
	line int // relative to the call's first line, from 0
}

// litParser reads the keyword arguments of config(...): Jinja literals
// (strings, numbers, booleans, none, lists, tuples, dicts) and the calls
// var('name', default) and env_var('NAME', default), which dbt projects
// use in configs. Anything else is an error: the config is read before
// rendering, so it must not depend on the warehouse.
type litParser struct {
	s string
	i int
	litEnv
}

// litEnv is what var() and target.x read.
type litEnv struct {
	vars map[string]any
	// target is a field of the target (name, type, schema, threads);
	// false when there is none.
	target func(field string) (any, bool)
}

type litError struct {
	off int
	msg string
}

func (e *litError) Error() string { return e.msg }

// parseKwargs parses "k=v, k2=v2".
func parseKwargs(s string, env litEnv) (out []kwarg, err error) {
	defer func() {
		if r := recover(); r != nil {
			le, ok := r.(*litError)
			if !ok {
				panic(r)
			}
			out, err = nil, le
		}
	}()
	p := &litParser{s: s, litEnv: env}
	for {
		p.space()
		if p.i >= len(p.s) {
			return out, nil
		}
		start := p.i
		name := p.ident()
		if name == "" {
			p.fail("expected a keyword argument such as materialized='table'")
		}
		p.space()
		if !p.eat('=') {
			p.fail("config() takes keyword arguments only: write %s=value", name)
		}
		v := p.value()
		out = append(out, kwarg{name: name, val: v, line: strings.Count(s[:start], "\n")})
		p.space()
		if !p.eat(',') {
			p.space()
			if p.i < len(p.s) {
				p.fail("expected , between arguments (a config() value is a literal, var(), env_var() or target.x, not an expression)")
			}
		}
	}
}

func (p *litParser) fail(format string, args ...any) {
	panic(&litError{off: p.i, msg: fmt.Sprintf(format, args...)})
}

func (p *litParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *litParser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *litParser) ident() string {
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] == '_' || p.s[p.i] == '.' || isAlnum(p.s[p.i])) {
		p.i++
	}
	return p.s[start:p.i]
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *litParser) value() any {
	p.space()
	if p.i >= len(p.s) {
		p.fail("expected a value")
	}
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		return p.str()
	case c == '[' || c == '(':
		closeBy := byte(']')
		if c == '(' {
			closeBy = ')'
		}
		p.i++
		return p.list(closeBy)
	case c == '{':
		p.i++
		return p.dict()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	word := p.ident()
	switch word {
	case "true", "True":
		return true
	case "false", "False":
		return false
	case "none", "None":
		return nil
	case "var", "env_var":
		return p.call(word)
	case "":
		p.fail("expected a value")
	}
	if f, ok := strings.CutPrefix(word, "target."); ok && p.target != nil {
		if v, ok := p.target(f); ok {
			return v
		}
	}
	p.fail("%s cannot be read before rendering: config() values must be literals, var(), env_var() or target.name/type/schema/threads", word)
	return nil
}

func (p *litParser) str() string {
	q := p.s[p.i]
	var b strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		c := p.s[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			b.WriteByte(p.s[p.i])
		case c == q:
			p.i++
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	p.fail("unterminated string")
	return ""
}

func (p *litParser) list(closeBy byte) []any {
	out := []any{}
	for !p.eat(closeBy) {
		out = append(out, p.value())
		if !p.eat(',') && !p.eat(closeBy) {
			p.fail("expected , or %c in a list", closeBy)
		} else if p.s[p.i-1] == closeBy {
			return out
		}
	}
	return out
}

func (p *litParser) dict() map[string]any {
	out := map[string]any{}
	for !p.eat('}') {
		k, ok := p.value().(string)
		if !ok {
			p.fail("dict keys must be quoted strings")
		}
		if !p.eat(':') {
			p.fail("expected : after the key %q", k)
		}
		out[k] = p.value()
		if !p.eat(',') && !p.eat('}') {
			p.fail("expected , or } in a dict")
		} else if p.s[p.i-1] == '}' {
			return out
		}
	}
	return out
}

func (p *litParser) number() any {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.') {
		p.i++
	}
	text := p.s[start:p.i]
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		p.fail("%q is not a number", text)
	}
	return f
}

// call evaluates var(name[, default]) from the project's vars (dbt's raw
// value) and env_var(NAME[, default]) from the environment.
func (p *litParser) call(fn string) any {
	if !p.eat('(') {
		p.fail("%s needs arguments: %s('name')", fn, fn)
	}
	args := p.list(')')
	if len(args) == 0 || len(args) > 2 {
		p.fail("%s takes a name and an optional default", fn)
	}
	name, ok := args[0].(string)
	if !ok {
		p.fail("%s: the name must be a quoted string", fn)
	}
	if fn == "var" {
		if v, ok := p.vars[name]; ok {
			return v
		}
	} else if v, ok := os.LookupEnv(name); ok {
		return v
	}
	if len(args) == 2 {
		return args[1]
	}
	p.fail("%s(%q) is not set and has no default", fn, name)
	return nil
}

// jinjaValue evaluates properties-file values that are one Jinja
// expression, such as values: "{{ var('statuses') }}" (dbt renders these
// files): literals, var() and env_var(), as in config(). Other strings,
// and expressions it cannot read, are returned as they are.
func jinjaValue(v any, env litEnv) any {
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		if !strings.HasPrefix(s, "{{") || !strings.HasSuffix(s, "}}") {
			return v
		}
		kws, err := parseKwargs("v="+strings.TrimSpace(s[2:len(s)-2]), env)
		if err != nil || len(kws) != 1 {
			return v
		}
		return kws[0].val
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = jinjaValue(x[i], env)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jinjaValue(e, env)
		}
		return out
	}
	return v
}
