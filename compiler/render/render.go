// Package render expands model and macro templates (Jinja, through gonja v2).
//
// A model is rendered once per compile. Every value that differs between the
// analysis rendering and a target rendering, or between units (ref, source,
// start, end, partition, as_of, watermarks, surrogate_key), is written as a
// marker into the output and filled in later by Expand, so one gonja
// execution serves the parser and every partition of every target.
package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// SlotKind names a value filled in after rendering.
type SlotKind int

// Slot kinds.
const (
	Ref SlotKind = iota
	Source
	Start
	End
	Partition
	AsOf
	WatermarkStart
	WatermarkEnd
	SurrogateKey
	This
	Var
)

// Slot is one marker in rendered text.
type Slot struct {
	Kind  SlotKind
	A, B  string   // ref: model; source: source, table; var: name
	Exprs []string // surrogate_key
	Value any      // var: the value
}

// Rendered is a rendered template with markers.
type Rendered struct {
	text  string
	slots []Slot
	// Refs are the models and seeds named by ref(), in order of first use.
	Refs []string
	// Sources are the source("src", "table") pairs named, in order of first use.
	Sources [][2]string
	// UsesWindow reports whether the template used start, end, partition or
	// a watermark bound.
	UsesWindow bool
	// UsesAsOf reports whether the template used as_of.
	UsesAsOf bool
}

const mark = '\x00'

// Expand fills every marker with fill's text.
func (r *Rendered) Expand(fill func(*Slot) string) string {
	s := r.text
	if strings.IndexByte(s, mark) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 64*len(r.slots))
	for {
		i := strings.IndexByte(s, mark)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i+1:], mark)
		if j < 0 { // a lone marker byte cannot come from us; keep it
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		n, err := strconv.Atoi(s[i+1 : i+1+j])
		if err != nil || n >= len(r.slots) {
			b.WriteString(s[i : i+j+2])
		} else {
			b.WriteString(fill(&r.slots[n]))
		}
		s = s[i+j+2:]
	}
}

// Env holds what every render of a project shares: the parsed macro files
// and the project's variables. Safe for concurrent use.
type Env struct {
	macros []*exec.Template
	vars   map[string]any
	cfg    *config.Config
	env    *exec.Environment
}

// File is a template's path and text, for error positions.
type File struct {
	Path string
	Text string
}

var quietOnce sync.Once

// NewEnv parses the macro files once.
func NewEnv(macros []File, vars map[string]any) (*Env, error) {
	quietOnce.Do(func() { gonja.SetLoggerOutput(io.Discard) })
	cfg := config.New()
	cfg.StrictUndefined = true
	cfg.KeepTrailingNewline = true
	e := &Env{vars: vars, cfg: cfg, env: &exec.Environment{
		Context:           exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables),
		Filters:           builtins.Filters,
		Tests:             builtins.Tests,
		ControlStructures: builtins.ControlStructures,
		Methods:           builtins.Methods,
	}}
	var errs []error
	for _, m := range macros {
		t, err := e.parse(m.Path, m.Text)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		e.macros = append(e.macros, t)
	}
	return e, errors.Join(errs...)
}

// Template is a parsed model template.
type Template struct {
	path string
	t    *exec.Template
}

// Parse parses one model body.
func (e *Env) Parse(path, text string) (*Template, error) {
	t, err := e.parse(path, text)
	if err != nil {
		return nil, err
	}
	return &Template{path: path, t: t}, nil
}

func (e *Env) parse(path, text string) (t *exec.Template, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, &Error{Path: path, Msg: fmt.Sprintf("template error: %v", p)}
		}
	}()
	loader, err := loaders.NewShiftedLoader(path, strings.NewReader(text), noIncludes{})
	if err != nil {
		return nil, err
	}
	t, err = exec.NewTemplate(path, e.cfg, loader, e.env)
	if err != nil {
		return nil, templateError(path, text, err)
	}
	return t, nil
}

// noIncludes refuses {% include %} and {% import %} of files: macros are
// shared through macros/, which every template sees.
type noIncludes struct{}

func (noIncludes) Read(path string) (io.Reader, error) {
	return nil, fmt.Errorf("cannot include %q: put shared templates in macros/ (every model sees them)", path)
}
func (noIncludes) Resolve(path string) (string, error) { return path, nil }
func (noIncludes) Inherit(from string) (loaders.Loader, error) {
	return noIncludes{}, nil
}

// Context is what one model render sees besides the markers.
type Context struct {
	// Known reports whether ref(name) names a model or seed.
	Known func(name string) bool
	// KnownSource reports whether source(src, table) is declared.
	KnownSource func(src, table string) bool
	// Literal renders a var value as a SQL literal of the analysis dialect.
	Literal func(v any) string
	// SuggestRef returns the closest known name for an unknown ref, or "".
	SuggestRef func(name string) string
	// IsIncremental is the value of is_incremental().
	IsIncremental bool
	// Vars override the project's variables (--vars).
	Vars map[string]any
}

// Error is a template error at a position.
type Error struct {
	Path      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Render executes the template once.
func (e *Env) Render(t *Template, text string, c *Context) (out *Rendered, err error) {
	r := &Rendered{}
	var errs []error
	slot := func(s Slot) string {
		r.slots = append(r.slots, s)
		return string(mark) + strconv.Itoa(len(r.slots)-1) + string(mark)
	}
	seenRef := map[string]bool{}
	seenSrc := map[[2]string]bool{}
	data := map[string]any{
		"ref": func(name string) string {
			if !c.Known(name) {
				errs = append(errs, &unknownRef{name: name})
			}
			if !seenRef[name] {
				seenRef[name] = true
				r.Refs = append(r.Refs, name)
			}
			return slot(Slot{Kind: Ref, A: name})
		},
		"source": func(src, table string) string {
			if !c.KnownSource(src, table) {
				errs = append(errs, &unknownSource{src: src, table: table})
			}
			k := [2]string{src, table}
			if !seenSrc[k] {
				seenSrc[k] = true
				r.Sources = append(r.Sources, k)
			}
			return slot(Slot{Kind: Source, A: src, B: table})
		},
		"var": func(args ...any) string {
			if len(args) == 0 {
				errs = append(errs, fmt.Errorf("var() needs a name: var(\"name\") or var(\"name\", default)"))
				return ""
			}
			name := fmt.Sprint(args[0])
			v, ok := c.Vars[name]
			if !ok {
				v, ok = e.vars[name]
			}
			if !ok && len(args) > 1 {
				v, ok = args[1], true
			}
			if !ok {
				errs = append(errs, &unknownVar{name: name})
				return "NULL"
			}
			return c.Literal(v)
		},
		"surrogate_key": func(cols any) string {
			exprs := stringsOf(cols)
			if len(exprs) == 0 {
				errs = append(errs, fmt.Errorf("surrogate_key needs a non-empty list of columns: surrogate_key([\"a\", \"b\"])"))
			}
			return slot(Slot{Kind: SurrogateKey, Exprs: exprs})
		},
		"is_incremental": func() bool { return c.IsIncremental },
	}
	lazy := func(k SlotKind) string { return slot(Slot{Kind: k}) }
	// start/end/partition/as_of/this are plain variables; markers are made
	// once and reused.
	data["start"] = lazy(Start)
	data["end"] = lazy(End)
	data["partition"] = lazy(Partition)
	data["as_of"] = lazy(AsOf)
	data["watermark_start"] = lazy(WatermarkStart)
	data["watermark_end"] = lazy(WatermarkEnd)
	data["this"] = lazy(This)

	ctx := e.env.Context.Inherit().Update(exec.NewContext(data))
	env := &exec.Environment{Context: ctx, Filters: e.env.Filters, Tests: e.env.Tests, ControlStructures: e.env.ControlStructures, Methods: e.env.Methods}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &Error{Path: t.path, Msg: fmt.Sprintf("template error: %v", p)}
		}
	}()
	for _, m := range e.macros {
		if err := exec.NewRenderer(env, io.Discard, e.cfg, nil, m).Execute(); err != nil {
			return nil, &Error{Path: "macros", Msg: err.Error()}
		}
	}
	var buf bytes.Buffer
	if err := exec.NewRenderer(env, &buf, e.cfg, nil, t.t).Execute(); err != nil {
		return nil, templateError(t.path, text, err)
	}
	if len(errs) > 0 {
		return nil, positioned(t.path, text, c, errs)
	}
	r.text = buf.String()
	r.UsesWindow = usesAny(r.text, r.slots, Start, End, Partition, WatermarkStart, WatermarkEnd)
	r.UsesAsOf = usesAny(r.text, r.slots, AsOf)
	return r, nil
}

// usesAny reports whether a marker of one of the kinds appears in the text.
func usesAny(text string, slots []Slot, kinds ...SlotKind) bool {
	for i, s := range slots {
		for _, k := range kinds {
			if s.Kind == k && strings.Contains(text, string(mark)+strconv.Itoa(i)+string(mark)) {
				return true
			}
		}
	}
	return false
}

// stringsOf flattens a template value (string, list, gonja value) to strings.
func stringsOf(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case *exec.Value:
		return stringsOf(x.Interface())
	case string:
		return []string{x}
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		var out []string
		for i := 0; i < rv.Len(); i++ {
			out = append(out, stringsOf(rv.Index(i).Interface())...)
		}
		return out
	}
	return []string{fmt.Sprint(v)}
}

type unknownRef struct{ name string }

func (u *unknownRef) Error() string { return "ref " + u.name }

type unknownSource struct{ src, table string }

func (u *unknownSource) Error() string { return "source " + u.src + "." + u.table }

type unknownVar struct{ name string }

func (u *unknownVar) Error() string { return "var " + u.name }

// positioned turns the errors found while rendering into positioned ones.
func positioned(path, text string, c *Context, errs []error) error {
	var out []error
	for _, err := range errs {
		switch x := err.(type) {
		case *unknownRef:
			line, col := find(text, "ref", x.name)
			msg := fmt.Sprintf("ref(%q): no model or seed named %q", x.name, x.name)
			if c.SuggestRef != nil {
				if s := c.SuggestRef(x.name); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", s)
				}
			}
			out = append(out, &Error{Path: path, Line: line, Col: col, Msg: msg})
		case *unknownSource:
			line, col := find(text, "source", x.src)
			out = append(out, &Error{Path: path, Line: line, Col: col, Msg: fmt.Sprintf("source(%q, %q) is not declared: add it to [sources.%s] tables in project.toml", x.src, x.table, x.src)})
		case *unknownVar:
			line, col := find(text, "var", x.name)
			out = append(out, &Error{Path: path, Line: line, Col: col, Msg: fmt.Sprintf("var(%q) is not set: add it to [vars] in project.toml, pass --vars '{\"%s\": …}' or give a default: var(%q, …)", x.name, x.name, x.name)})
		default:
			out = append(out, &Error{Path: path, Msg: err.Error()})
		}
	}
	return errors.Join(out...)
}

// find locates fn("arg" in the template text for an error position.
func find(text, fn, arg string) (int, int) {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(fn) + `\(\s*["']` + regexp.QuoteMeta(arg) + `["']`)
	loc := re.FindStringIndex(text)
	if loc == nil {
		return 0, 0
	}
	return lineCol(text, loc[0])
}

func lineCol(text string, off int) (int, int) {
	line := 1 + strings.Count(text[:off], "\n")
	col := off - strings.LastIndexByte(text[:off], '\n')
	return line, col
}

var gonjaPos = regexp.MustCompile(`[Ll]ine:? ?(\d+)(?:[^\d]+[Cc]ol(?:umn)?:? ?(\d+))?`)

// templateError positions a gonja error and trims its noise.
func templateError(path, text string, err error) error {
	msg := err.Error()
	e := &Error{Path: path}
	if m := gonjaPos.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Col, _ = strconv.Atoi(m[2])
	}
	// gonja repeats the whole source in parse errors; keep the reason only.
	if i := strings.Index(msg, "failed to parse template '"); i >= 0 {
		if j := strings.LastIndex(msg, "': "); j > i {
			msg = msg[j+3:]
		}
	}
	msg = strings.TrimPrefix(msg, "unable to execute template: ")
	e.Msg = "template error: " + msg
	return e
}
