package render

// dbt.go is the part of dbt's template surface that is not SQL spelling
// (that is crossdb.go): target, env_var, return, adapter.dispatch,
// exceptions, log, execute, run_started_at, invocation_id, config and
// {% docs %}. It follows dbt-core's context (dbt/context/base.py and
// providers.py): the names, their arguments and what they evaluate to.

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/nikolalohinski/gonja/v2/builtins"
	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// Target is dbt's target object: the target the project is compiled for.
type Target struct {
	Name     string // the target's name
	Type     string // the engine: duckdb, postgres, mysql (MariaDB too), snowflake, bigquery, spark
	Schema   string
	Database string // "" when the target names none
	Profile  string // profile_name: the project's name (dbt: the profile's)
	Threads  int
}

// GetAttribute is target.<name>; dbt's adapter-specific aliases (dbname,
// project, dataset, catalog) read the same fields.
func (t *Target) GetAttribute(name string) (*exec.Value, bool) {
	switch name {
	case "name":
		return exec.AsValue(t.Name), true
	case "type":
		return exec.AsValue(t.Type), true
	case "schema", "dataset":
		return exec.AsValue(t.Schema), true
	case "database", "dbname", "project", "catalog":
		return exec.AsValue(t.Database), true
	case "profile_name":
		return exec.AsValue(t.Profile), true
	case "threads":
		return exec.AsValue(t.Threads), true
	}
	// found, with an error as the value: gonja then reports this message
	return exec.AsValue(fmt.Errorf("target has no attribute %q (it has name, type, schema, database, threads, profile_name)", name)), true
}

// SecretPrefix marks environment variables whose values are never printed
// (dbt's DBT_ENV_SECRET_ convention): rendered into SQL, scrubbed from
// messages, and a render that reads one is not kept in the compile cache.
const SecretPrefix = "DBT_ENV_SECRET_"

// EnvRead is one environment variable a render read, for the compile
// cache: the render is only reused while every value is the same.
type EnvRead struct {
	Name  string
	Value string
	Set   bool
}

// controlStructuresWith are gonja's control structures with {% macro %}
// made to honour return() and a {% docs %} block that renders nothing
// (dbt reads docs blocks from .md files; one in a template is ignored).
func controlStructuresWith() *exec.ControlStructureSet {
	set := exec.NewControlStructureSet(map[string]parser.ControlStructureParser{}).Update(builtins.ControlStructures)
	orig, _ := set.Get("macro")
	_ = set.Replace("macro", func(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
		cs, err := orig(p, args)
		if m, ok := cs.(*controlStructures.MacroControlStructure); ok && err == nil {
			return &returningMacro{m}, nil
		}
		return cs, err
	})
	_ = set.Register("docs", func(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
		pos := p.Current()
		if _, _, err := p.WrapUntil("enddocs"); err != nil {
			return nil, err
		}
		return &ignored{pos: pos}, nil
	})
	return set
}

// returningMacro is a {% macro %} whose call evaluates to the value given
// to return() when the body calls it, as dbt's macros do (dbt raises an
// exception carrying the value and catches it at the macro's call).
type returningMacro struct {
	*controlStructures.MacroControlStructure
}

// returned carries return()'s value up to the macro call.
type returned struct{ v *exec.Value }

func (m *returningMacro) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	fn, err := exec.MacroNodeToFunc(m.Macro, r)
	if err != nil {
		return err
	}
	v, _ := r.Environment.Context.Get(workerKey)
	w, _ := v.(*worker)
	name := m.Name
	r.Environment.Context.Set(m.Name, exec.Macro(func(params *exec.VarArgs) (out *exec.Value) {
		// Macros calling each other through adapter.dispatch escape the
		// recursion check (nesting.go): bound the depth, since a runaway
		// recursion overflows the Go stack, which no recover catches.
		if w != nil {
			if w.depth++; w.depth > MaxNesting {
				w.depth--
				err := &compileError{msg: fmt.Sprintf("macro calls nest deeper than %d levels (at %s): a macro calls itself, through adapter.dispatch or another macro", MaxNesting, name)}
				w.cur.errs = append(w.cur.errs, err)
				return exec.AsValue(err)
			}
			defer func() { w.depth-- }()
		}
		defer func() {
			if p := recover(); p != nil {
				ret, ok := p.(returned)
				if !ok {
					panic(p)
				}
				out = ret.v
			}
		}()
		return fn(params)
	}))
	return nil
}

// ignored is a block that renders nothing.
type ignored struct{ pos *tokens.Token }

func (i *ignored) Position() *tokens.Token { return i.pos }
func (i *ignored) String() string          { return "docs block" }
func (i *ignored) Execute(*exec.Renderer, *nodes.ControlStructureBlock) error {
	return nil
}

// compileError is exceptions.raise_compiler_error's: the model fails to
// compile with the message.
type compileError struct {
	msg  string
	line int // of the model's call that raised it, once known
}

func (c *compileError) Error() string { return c.msg }

// missingEnv is env_var(name) of an unset variable without a default.
type missingEnv struct{ name string }

func (m *missingEnv) Error() string { return "env_var " + m.name }

// packageRef is ref("pkg", "model") for another package.
type packageRef struct{ pkg, model string }

func (p *packageRef) Error() string { return "ref " + p.pkg + "." + p.model }

// workerKey names the worker in its own context, for the macros defined in
// it (not a name a template can write: it has a space).
const workerKey = "idemc worker"

// dbtBuiltins adds dbt's names to a worker's context data.
func (w *worker) dbtBuiltins(data map[string]any) {
	data[workerKey] = w
	data["ref"] = func(va *exec.VarArgs) *exec.Value { return w.cur.refCall(va) }
	data["target"] = &targetObj{w: w}
	data["env_var"] = func(va *exec.VarArgs) *exec.Value { return w.cur.envVar(va) }
	data["return"] = func(va *exec.VarArgs) *exec.Value {
		v := exec.AsValue(nil)
		if len(va.Args) > 0 {
			v = va.Args[0]
		}
		panic(returned{v})
	}
	data["adapter"] = &adapterObj{w: w}
	data["exceptions"] = &exceptionsObj{w: w}
	data["log"] = func(va *exec.VarArgs) *exec.Value {
		if len(va.Args) > 0 {
			info := len(va.Args) > 1 && va.Args[1].IsTrue() || va.KwArgs["info"] != nil && va.KwArgs["info"].IsTrue()
			w.cur.log(va.Args[0].String(), info)
		}
		return exec.AsSafeValue("")
	}
	data["execute"] = true
	data["none"] = nil // dbt's macros write none (Python's None) in lower case
	data["run_started_at"] = &runStarted{w: w}
	data["invocation_id"] = &asOfValue{w: w, format: "invocation_id"}
	data["config"] = func(*exec.VarArgs) *exec.Value { return exec.AsSafeValue("") }
	data["dbt"] = &namespace{w: w, name: "dbt"}
	data["dbt_utils"] = &namespace{w: w, name: "dbt_utils"}
	// The bare cross-database macros are in the Env's base context (once,
	// not per worker: see crossDBGlobals).
}

// Relation names a model's relation: dbt's this.database, .schema,
// .identifier (also .name, .table).
type Relation struct {
	Database, Schema, Identifier string
}

// thisObj is this: printed, the relation quoted for the target (a slot,
// filled per target); its attributes are the parts, unquoted, as dbt's.
type thisObj struct{ w *worker }

func (t *thisObj) String() string { return fixedMarkers[thisSlot] }

func (t *thisObj) GetAttribute(name string) (*exec.Value, bool) {
	r := t.w.cur.c.This
	switch name {
	case "database":
		return exec.AsValue(r.Database), true
	case "schema":
		return exec.AsValue(r.Schema), true
	case "identifier", "name", "table":
		return exec.AsValue(r.Identifier), true
	}
	return exec.AsValue(fmt.Errorf("this has no attribute %q (it has database, schema, identifier, name)", name)), true
}

// thisSlot is the fixed slot of this.
const thisSlot = 6

// targetObj is target for the render in progress.
type targetObj struct{ w *worker }

func (t *targetObj) GetAttribute(name string) (*exec.Value, bool) {
	return t.w.cur.target().GetAttribute(name)
}

func (t *targetObj) String() string { return t.w.cur.target().Name }

// target is the render's target object.
func (s *state) target() *Target {
	if s.c.Target != nil {
		return s.c.Target
	}
	return &Target{}
}

// refCall is ref("model") or dbt's ref("package", "model").
func (s *state) refCall(va *exec.VarArgs) *exec.Value {
	if len(va.KwArgs) > 0 {
		return exec.AsValue(fmt.Errorf("ref() takes no keyword arguments (model versions are not supported)"))
	}
	switch len(va.Args) {
	case 1:
		return exec.AsSafeValue(s.ref(va.Args[0].String()))
	case 2:
		pkg, model := va.Args[0].String(), va.Args[1].String()
		if pkg != s.c.Project {
			s.errs = append(s.errs, &packageRef{pkg: pkg, model: model})
			return exec.AsSafeValue("")
		}
		return exec.AsSafeValue(s.ref(model))
	}
	return exec.AsValue(fmt.Errorf(`ref() takes a model name: ref("model") or ref("package", "model")`))
}

// envVar is env_var(name[, default]), read at compile time.
func (s *state) envVar(va *exec.VarArgs) *exec.Value {
	if len(va.Args) == 0 {
		return exec.AsValue(fmt.Errorf(`env_var() needs a name: env_var("NAME") or env_var("NAME", "default")`))
	}
	name := va.Args[0].String()
	get := s.c.Getenv
	if get == nil {
		get = os.LookupEnv
	}
	v, ok := get(name)
	s.r.EnvVars = append(s.r.EnvVars, EnvRead{Name: name, Value: v, Set: ok})
	if strings.HasPrefix(name, SecretPrefix) && ok {
		s.secrets = append(s.secrets, v)
	}
	if ok {
		return exec.AsSafeValue(v)
	}
	if len(va.Args) > 1 {
		return va.Args[1]
	}
	if d, has := va.KwArgs["default"]; has {
		return d
	}
	s.errs = append(s.errs, &missingEnv{name: name})
	return exec.AsSafeValue("")
}

// scrub hides the values of secret environment variables in a message.
func (s *state) scrub(msg string) string {
	for _, v := range s.secrets {
		if v != "" {
			msg = strings.ReplaceAll(msg, v, "*****")
		}
	}
	return msg
}

func (s *state) log(msg string, info bool) {
	if s.c.Log != nil {
		s.c.Log(s.scrub(msg), info)
	}
}

// adapterObj is dbt's adapter: dispatch only (the warehouse is never read
// at compile time).
type adapterObj struct{ w *worker }

func (a *adapterObj) GetAttribute(name string) (*exec.Value, bool) {
	if name != "dispatch" {
		return exec.AsValue(fmt.Errorf("adapter.%s is not supported (only adapter.dispatch is: idemc does not query the warehouse while compiling)", name)), true
	}
	return exec.AsValue(func(va *exec.VarArgs) *exec.Value { return a.w.dispatch(va) }), true
}

// dispatch is adapter.dispatch(macro_name, macro_namespace=None): the
// macro <target.type>__name, else default__name, else (for dbt's own
// namespace) idemc's built-in of that name — dbt-core's resolution without
// packages (dbt/adapters/base/impl.py, BaseAdapter.dispatch... and
// dbt/context/providers.py MacroDispatcher).
func (w *worker) dispatch(va *exec.VarArgs) *exec.Value {
	var name, ns string
	if len(va.Args) > 0 {
		name = va.Args[0].String()
	} else if v := va.KwArgs["macro_name"]; v != nil {
		name = v.String()
	}
	if len(va.Args) > 1 {
		ns = va.Args[1].String()
	} else if v := va.KwArgs["macro_namespace"]; v != nil && !v.IsNil() {
		ns = v.String()
	}
	if name == "" {
		return exec.AsValue(fmt.Errorf(`adapter.dispatch needs a macro name: adapter.dispatch("name", "package")`))
	}
	engine := w.cur.target().Type
	tried := []string{}
	for _, cand := range []string{engine + "__" + name, "default__" + name} {
		if strings.HasPrefix(cand, "__") {
			continue
		}
		tried = append(tried, cand)
		if v, ok := w.ctx.Get(cand); ok {
			if m, isMacro := v.(exec.Macro); isMacro {
				return exec.AsValue(m)
			}
		}
	}
	if _, ok := crossDB[name]; ok && (ns == "" || ns == "dbt" || ns == "dbt_utils") {
		return exec.AsValue(w.crossDBFunc(name))
	}
	// Raised, as dbt does: an error value here would only be "not callable".
	err := &compileError{msg: fmt.Sprintf("adapter.dispatch(%q): no macro %s is defined in macros/", name, strings.Join(tried, " or "))}
	w.cur.errs = append(w.cur.errs, err)
	return exec.AsValue(err)
}

// exceptionsObj is dbt's exceptions namespace.
type exceptionsObj struct{ w *worker }

func (e *exceptionsObj) GetAttribute(name string) (*exec.Value, bool) {
	s := func() *state { return e.w.cur }
	switch name {
	case "raise_compiler_error":
		return exec.AsValue(func(va *exec.VarArgs) *exec.Value {
			msg := "raise_compiler_error"
			if len(va.Args) > 0 {
				msg = va.Args[0].String()
			}
			err := &compileError{msg: s().scrub(msg)}
			s().errs = append(s().errs, err)
			return exec.AsValue(err) // stops the render, as dbt's exception does
		}), true
	case "warn":
		return exec.AsValue(func(va *exec.VarArgs) *exec.Value {
			if len(va.Args) > 0 {
				s().r.Warnings = append(s().r.Warnings, s().scrub(va.Args[0].String()))
			}
			return exec.AsSafeValue("")
		}), true
	}
	return exec.AsValue(fmt.Errorf("exceptions.%s is not supported (raise_compiler_error and warn are)", name)), true
}

// namespace is dbt.<macro> and dbt_utils.<macro>: the cross-database
// macros, or a project macro of that name (a project may override them).
type namespace struct {
	w    *worker
	name string
}

func (n *namespace) GetAttribute(name string) (*exec.Value, bool) {
	if v, ok := n.w.ctx.Get(name); ok {
		if m, isMacro := v.(exec.Macro); isMacro {
			return exec.AsValue(m), true
		}
	}
	if _, ok := crossDB[name]; ok {
		return exec.AsValue(n.w.crossDBFunc(name)), true
	}
	names := make([]string, 0, len(crossDB))
	for k := range crossDB {
		names = append(names, k)
	}
	sort.Strings(names)
	return exec.AsValue(fmt.Errorf("%s.%s is not a macro idemc provides (it has %s)", n.name, name, strings.Join(names, ", "))), true
}

// runStarted is run_started_at: the run's logical time (--as-of), printed
// through a slot so that the render, the cache and the code hash do not
// depend on it.
type runStarted struct{ w *worker }

func (r *runStarted) String() string { return r.w.cur.asOfSlot("str") }

func (r *runStarted) GetAttribute(name string) (*exec.Value, bool) {
	switch name {
	case "strftime":
		return exec.AsValue(func(va *exec.VarArgs) *exec.Value {
			if len(va.Args) != 1 {
				return exec.AsValue(fmt.Errorf(`run_started_at.strftime needs a format: strftime("%%Y-%%m-%%d")`))
			}
			return exec.AsSafeValue(r.w.cur.asOfSlot("strftime:" + va.Args[0].String()))
		}), true
	case "isoformat":
		return exec.AsValue(func(*exec.VarArgs) *exec.Value { return exec.AsSafeValue(r.w.cur.asOfSlot("iso")) }), true
	}
	return exec.AsValue(fmt.Errorf("run_started_at.%s is not supported (strftime and isoformat are)", name)), true
}

// asOfValue prints one text of the logical time (invocation_id).
type asOfValue struct {
	w      *worker
	format string
}

func (a *asOfValue) String() string { return a.w.cur.asOfSlot(a.format) }

func (s *state) asOfSlot(format string) string {
	return s.slot(Slot{Kind: AsOfText, A: format})
}
