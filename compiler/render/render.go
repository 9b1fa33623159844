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
	"strconv"
	"strings"
	"sync"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/nodes"
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
	// AsOfText is a text of the logical time: run_started_at, its
	// strftime and isoformat, invocation_id (A says which; see Slot.Text).
	AsOfText
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
	text string
	// slots are the markers' values after the fixed ones (fixedSlots), which
	// every render shares: marker n is slots[n-len(fixedSlots)].
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
	// UsesIncremental reports whether is_incremental() was called: only
	// then can the render differ with the warehouse's state.
	UsesIncremental bool
	// EnvVars are the environment variables env_var() read, in order.
	EnvVars []EnvRead
	// UsesSecret reports whether a DBT_ENV_SECRET_ variable was read: such
	// a render is not written to the compile cache.
	UsesSecret bool
	// Warnings are exceptions.warn()'s messages.
	Warnings []string
}

const mark = '\x00'

// Expand fills every marker with fill's text. fill must not modify the
// slot (the slots of start, end, … are shared by every Rendered).
func (r *Rendered) Expand(fill func(*Slot) string) string {
	s := r.text
	if strings.IndexByte(s, mark) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 64*(len(r.slots)+2))
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
		switch {
		case err != nil || n < 0 || n >= len(fixedSlots)+len(r.slots):
			b.WriteString(s[i : i+j+2])
		case n < len(fixedSlots):
			b.WriteString(fill(&fixedSlotValues[n]))
		default:
			b.WriteString(fill(&r.slots[n-len(fixedSlots)]))
		}
		s = s[i+j+2:]
	}
}

// Env holds what every render of a project shares: the parsed macro files
// and the project's variables. Safe for concurrent use.
//
// When the macro files only define macros (the usual case: their top level
// is {% macro %} blocks, comments and blank text), the macros are executed
// once per worker instead of once per render: a worker's context holds the
// built-in functions, which act on the render the worker is busy with, and
// the macros defined on top of them. Otherwise every render executes the
// macro files afresh, as a template engine would.
type Env struct {
	macros []*exec.Template
	vars   map[string]any
	cfg    *config.Config
	env    *exec.Environment

	// macroNames are the macros the files define; nil when the files do
	// more than define macros (then workers are not reused and templates
	// take no fast path).
	macroNames map[string]bool

	mu   sync.Mutex
	free []*worker // idle workers, reused when macroNames != nil

	noFast bool // tests: render everything with gonja
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
		Context:           exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables).Update(crossDBGlobals()),
		Filters:           builtins.Filters,
		Tests:             builtins.Tests,
		ControlStructures: controlStructuresWith(),
		Methods:           builtins.Methods,
	}}
	var errs []error
	names := map[string]bool{}
	for _, m := range macros {
		t, err := e.parse(m.Path, m.Text)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		e.macros = append(e.macros, t)
		if names != nil && !onlyMacros(t, names) {
			names = nil
		}
	}
	e.macroNames = names
	if len(errs) == 0 {
		errs = append(errs, checkRecursion(macros)) // across files: a → b → a
	}
	return e, errors.Join(errs...)
}

// onlyMacros reports whether a template's top level only defines macros
// (and has comments and text, whose output is discarded), adding their
// names.
func onlyMacros(t *exec.Template, names map[string]bool) bool {
	root := t.Root()
	if root == nil {
		return false
	}
	for _, n := range root.Nodes {
		switch x := n.(type) {
		case *nodes.Data, *nodes.Comment:
		case *nodes.ControlStructureBlock:
			m, ok := x.ControlStructure.(*returningMacro)
			if !ok || m.Macro == nil {
				return false
			}
			names[m.Name] = true
		default:
			return false
		}
	}
	return true
}

// Template is a parsed model template.
type Template struct {
	path string
	text string
	// fast is the template split into text and simple expressions, when it
	// has nothing else (see fast.go); nil otherwise.
	fast []segment
	once sync.Once
	t    *exec.Template // parsed by gonja: up front, or on first need for a fast template
	err  error
}

// Parse parses one model body.
func (e *Env) Parse(path, text string) (*Template, error) {
	if err := checkNesting(path, text); err != nil {
		return nil, err
	}
	if e.macroNames != nil && !e.noFast {
		if segs, ok := e.parseFast(text); ok {
			return &Template{path: path, text: text, fast: segs}, nil
		}
	}
	t, err := e.parse(path, text)
	if err != nil {
		return nil, err
	}
	tpl := &Template{path: path, text: text, t: t}
	tpl.once.Do(func() {})
	return tpl, nil
}

// gonja returns the template parsed by gonja.
func (t *Template) gonja(e *Env) (*exec.Template, error) {
	t.once.Do(func() { t.t, t.err = e.parse(t.path, t.text) })
	return t.t, t.err
}

func (e *Env) parse(path, text string) (t *exec.Template, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, &Error{Path: path, Msg: fmt.Sprintf("template error: %v", p)}
		}
	}()
	if err := checkNesting(path, text); err != nil {
		return nil, err
	}
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
	// RawVars gives var() dbt's meaning: the value as it is, not a SQL
	// literal (the dbt project loader sets it; see vars.go).
	RawVars bool
	// Target is the target object; nil is an empty one (type "").
	Target *Target
	// Project is the project's name, for ref("project", "model").
	Project string
	// This is the model's relation, for this.schema, this.name, ….
	This Relation
	// Getenv reads env_var(); nil reads the process environment.
	Getenv func(name string) (string, bool)
	// Log receives log()'s messages (secrets scrubbed); info asks for
	// them to be shown, not only written to the debug log. nil drops them.
	Log func(msg string, info bool)
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

// The variables start, end, partition, as_of, watermark_start,
// watermark_end and this are the first slots of every Rendered, so their
// markers are the same in every render.
var fixedSlots = [...]SlotKind{Start, End, Partition, AsOf, WatermarkStart, WatermarkEnd, This}

// fixedSlotValues are the slots of the fixed markers.
var fixedSlotValues = func() (v [len(fixedSlots)]Slot) {
	for i, k := range fixedSlots {
		v[i].Kind = k
	}
	return v
}()

var fixedVars = [...]string{"start", "end", "partition", "as_of", "watermark_start", "watermark_end", "this"}

var fixedMarkers = func() (m [len(fixedSlots)]string) {
	for i := range m {
		m[i] = markerOf(i)
	}
	return m
}()

func markerOf(n int) string { return string(mark) + strconv.Itoa(n) + string(mark) }

// state is one render in progress: what the built-in functions record.
type state struct {
	e       *Env
	r       *Rendered
	c       *Context
	errs    []error
	seenRef map[string]bool // made once Refs grows long
	seenSrc map[[2]string]bool
	secrets []string // values of secret env vars read, to scrub from messages
}

func (e *Env) newState(c *Context, extra int) *state {
	r := &Rendered{slots: make([]Slot, 0, extra)}
	return &state{e: e, r: r, c: c}
}

func (s *state) slot(sl Slot) string {
	s.r.slots = append(s.r.slots, sl)
	return markerOf(len(fixedSlots) + len(s.r.slots) - 1)
}

func (s *state) surrogateKey(cols any) string {
	exprs := stringsOf(cols)
	if len(exprs) == 0 {
		s.errs = append(s.errs, fmt.Errorf("surrogate_key needs a non-empty list of columns: surrogate_key([\"a\", \"b\"])"))
	}
	return s.slot(Slot{Kind: SurrogateKey, Exprs: exprs})
}

// worker is a template context whose built-in functions act on the render
// in progress (cur), with the macros defined on top. One goroutine at a
// time uses a worker.
type worker struct {
	cur   *state
	ctx   *exec.Context
	depth int // macro calls in progress (returningMacro)
}

// newWorker makes a worker and executes the macro files in it, with cur as
// the render in progress (top-level code of a macro file may call ref()).
func (e *Env) newWorker(cur *state) (*worker, error) {
	w := &worker{cur: cur}
	data := make(map[string]any, 24+len(fixedVars))
	w.dbtBuiltins(data)
	data["source"] = func(src, table string) string { return w.cur.source(src, table) }
	data["var"] = func(args ...any) any { return w.cur.variable(args...) }
	data["surrogate_key"] = func(cols any) string { return w.cur.surrogateKey(cols) }
	data["is_incremental"] = func() bool { w.cur.r.UsesIncremental = true; return w.cur.c.IsIncremental }
	for i, name := range fixedVars {
		data[name] = fixedMarkers[i]
	}
	data["this"] = &thisObj{w: w} // prints as the marker; has dbt's attributes
	w.ctx = e.env.Context.Inherit().Update(exec.NewContext(data))
	env := &exec.Environment{Context: w.ctx, Filters: e.env.Filters, Tests: e.env.Tests, ControlStructures: e.env.ControlStructures, Methods: e.env.Methods}
	for _, m := range e.macros {
		if err := exec.NewRenderer(env, io.Discard, e.cfg, nil, m).Execute(); err != nil {
			return nil, &Error{Path: "macros", Msg: err.Error()}
		}
	}
	return w, nil
}

// acquire returns a worker for a fast render s: an idle one, or a new one.
// Fast renders only call functions and macros, which set nothing in the
// worker's context, so workers can be reused.
func (e *Env) acquire(s *state) (*worker, error) {
	if e.macroNames != nil {
		e.mu.Lock()
		if n := len(e.free); n > 0 {
			w := e.free[n-1]
			e.free = e.free[:n-1]
			e.mu.Unlock()
			w.cur = s
			return w, nil
		}
		e.mu.Unlock()
	}
	return e.newWorker(s)
}

func (e *Env) release(w *worker) {
	w.cur = nil
	if e.macroNames == nil {
		return
	}
	e.mu.Lock()
	e.free = append(e.free, w)
	e.mu.Unlock()
}

// Render executes the template once.
func (e *Env) Render(t *Template, text string, c *Context) (out *Rendered, err error) {
	if t.fast != nil {
		if r, ok := e.renderFast(t, c); ok {
			return r, nil
		}
		// Anything unusual (an error, a value that is not text): let the
		// template engine render it, with its own messages.
	}
	gt, err := t.gonja(e)
	if err != nil {
		return nil, err
	}
	s := e.newState(c, 8)
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("template error: %v", p)
			if _, isReturn := p.(returned); isReturn {
				msg = "return() is only allowed inside a {% macro %}: it ends the macro with a value"
			}
			out, err = nil, &Error{Path: t.path, Msg: msg}
		}
	}()
	// A fresh worker, whose context the template shares with the macros
	// (as {% call %} and {% set %} expect), so nothing it sets outlives it.
	w, err := e.newWorker(s)
	if err != nil {
		return nil, err
	}
	env := &exec.Environment{Context: w.ctx, Filters: e.env.Filters, Tests: e.env.Tests, ControlStructures: e.env.ControlStructures, Methods: e.env.Methods}
	var buf bytes.Buffer
	buf.Grow(len(text) + len(text)/4)
	if rerr := exec.NewRenderer(env, &buf, e.cfg, nil, gt).Execute(); rerr != nil {
		if errs := s.raised(); errs != nil { // raise_compiler_error, env_var: their own messages
			if m := gonjaPos.FindStringSubmatch(rerr.Error()); m != nil {
				line, _ := strconv.Atoi(m[1]) // the model's line of the call that raised
				for _, err := range errs {
					if ce, ok := err.(*compileError); ok && ce.line == 0 {
						ce.line = line
					}
				}
			}
			return nil, positioned(t.path, text, c, errs)
		}
		return nil, templateError(t.path, text, errors.New(s.scrub(rerr.Error())))
	}
	r := s.finish(buf.String())
	if len(s.errs) > 0 {
		return nil, positioned(t.path, text, c, s.errs)
	}
	return r, nil
}

// raised are the errors of the render that stop it with a message of their
// own, or nil.
func (s *state) raised() []error {
	for _, err := range s.errs {
		switch err.(type) {
		case *compileError, *missingEnv, *packageRef:
			return s.errs
		}
	}
	return nil
}

// finish sets the text and what it uses.
func (s *state) finish(text string) *Rendered {
	r := s.r
	r.text = s.printLists(text)
	r.UsesWindow, r.UsesAsOf = uses(r.text)
	for i := range r.slots {
		if r.slots[i].Kind == AsOfText {
			r.UsesAsOf = true
		}
	}
	r.UsesSecret = len(s.secrets) > 0
	return r
}

// uses reports whether the text holds a marker of a window variable
// (start, end, partition, watermark_start, watermark_end) and of as_of.
func uses(text string) (window, asOf bool) {
	for {
		i := strings.IndexByte(text, mark)
		if i < 0 {
			return
		}
		j := strings.IndexByte(text[i+1:], mark)
		if j < 0 {
			return
		}
		if j == 1 { // the fixed slots have one-digit numbers
			if n := int(text[i+1]) - '0'; n >= 0 && n < len(fixedSlots) {
				switch fixedSlots[n] {
				case Start, End, Partition, WatermarkStart, WatermarkEnd:
					window = true
				case AsOf:
					asOf = true
				}
			}
		}
		text = text[i+j+2:]
	}
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
