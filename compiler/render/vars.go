package render

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// var() has two meanings:
//
//   - native projects: a scalar renders as a safe SQL literal of the
//     target's dialect; a list is given to the template as the list, so
//     {% for m in var("methods") %} iterates its items, and printed it is a
//     SQL list, ('a', 'b'); a map is given as the map and cannot be printed.
//   - RawVars (dbt projects): the value as it is, as dbt's var() returns
//     it: '{{ var("start_date") }}' is '2018-01-01'.
//
// A printed list needs the dialect's literals, which a value printed by the
// template engine (fmt.Stringer) cannot reach: it prints as a marker holding
// its items as JSON, which finish turns into the SQL list.

// sqlList is a native list var.
type sqlList []any

// sqlMap is a native map var.
type sqlMap map[string]any

const listMark = "\x00!"

func (l sqlList) String() string {
	b, err := json.Marshal([]any(l))
	if err != nil {
		b = []byte("null")
	}
	return listMark + string(b) + string(mark)
}

func (m sqlMap) String() string { return listMark + "{}" + string(mark) }

// printedVar is one printed list or map var, for its error.
type printedVar struct{ msg string }

func (p *printedVar) Error() string { return p.msg }

// varValue is what var(name[, default]) gives the template.
func (s *state) variable(args ...any) any {
	if len(args) == 0 {
		s.errs = append(s.errs, fmt.Errorf("var() needs a name: var(\"name\") or var(\"name\", default)"))
		return ""
	}
	name, ok := args[0].(string)
	if !ok {
		name = fmt.Sprint(args[0])
	}
	v, ok := s.c.Vars[name]
	if !ok {
		v, ok = s.e.vars[name]
	}
	if !ok && len(args) > 1 {
		v, ok = args[1], true
	}
	if !ok {
		s.errs = append(s.errs, &unknownVar{name: name})
		return "NULL"
	}
	v = plain(v)
	if s.c.RawVars {
		return v
	}
	switch x := v.(type) {
	case []any:
		return sqlList(x)
	case map[string]any:
		return sqlMap(x)
	}
	return s.c.Literal(v)
}

// plain is a var's value as Go data: a template value (a default written
// in the template) unwrapped, lists as []any and maps as map[string]any.
func plain(v any) any {
	if x, ok := v.(*exec.Value); ok {
		v = x.Interface()
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Slice, reflect.Array:
		if _, isBytes := v.([]byte); isBytes {
			return v
		}
		l := make([]any, rv.Len())
		for i := range l {
			l[i] = plain(rv.Index(i).Interface())
		}
		return l
	case reflect.Map:
		m := make(map[string]any, rv.Len())
		for _, k := range rv.MapKeys() {
			m[fmt.Sprint(plain(k.Interface()))] = plain(rv.MapIndex(k).Interface())
		}
		return m
	}
	return v
}

// printed is the text of a template value as the template engine prints it.
func printed(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return exec.ToValue(v).String()
}

// printLists replaces the markers of printed list vars with SQL lists.
func (s *state) printLists(text string) string {
	if !strings.Contains(text, listMark) {
		return text
	}
	var b strings.Builder
	for {
		i := strings.Index(text, listMark)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := strings.IndexByte(text[i+len(listMark):], mark)
		if j < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		b.WriteString(s.sqlList(text[i+len(listMark) : i+len(listMark)+j]))
		text = text[i+len(listMark)+j+1:]
	}
}

// sqlList renders the JSON items of a printed list as ('a', 'b').
func (s *state) sqlList(items string) string {
	if items == "{}" {
		s.errs = append(s.errs, &printedVar{msg: `a var holding a map was printed: a map is not SQL; use one of its values, var("name")["key"], or iterate it: {% for k, v in var("name").items() %}`})
		return ""
	}
	var l []any
	dec := json.NewDecoder(strings.NewReader(items))
	dec.UseNumber() // integers beyond 2^53 stay exact
	if err := dec.Decode(&l); err != nil || len(l) == 0 {
		s.errs = append(s.errs, &printedVar{msg: `a var holding an empty list was printed: "in ()" is not SQL; give the list at least one item, or test it first: {% if var("name") %}`})
		return ""
	}
	parts := make([]string, len(l))
	for i, x := range l {
		switch x.(type) {
		case []any, map[string]any:
			s.errs = append(s.errs, &printedVar{msg: "a var holding a list of lists or maps was printed: only a list of strings, numbers and booleans is a SQL list"})
			return ""
		case json.Number:
			n := x.(json.Number)
			if i, err := n.Int64(); err == nil {
				x = i
			} else if f, err := n.Float64(); err == nil {
				x = f
			}
		}
		parts[i] = s.c.Literal(x)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
