package statefuzz

import (
	"fmt"
	"strings"
)

// Repro renders a failure as a txtar archive: a script of the commands (in
// the style of testscript: `exec idemc …`, `cp` of the next version of a
// file, `sql` for what is done outside idemc), the initial project and,
// under stepN/, every file that operation N changes. Schemas are named
// with the prefix "fz"; DuckDB writes warehouse.duckdb in the folder.
func (f *Failure) Repro() string {
	engine := f.Engine
	if engine == "" {
		engine = "duckdb"
	}
	w := &Warehouse{Engine: &Engine{Name: engine, DSNVar: dsnVar(engine)}, Schemas: Schemas{Prefix: "fz"}}
	var script, files strings.Builder
	fmt.Fprintf(&script, "# statefuzz: engine %s, seed %d, %d threads.\n", f.Engine, f.Seed, f.Threads)
	fmt.Fprintf(&script, "# Expected at the last command (%s): %s\n", f.After, f.Diffs[0].String())
	build := fmt.Sprintf("exec idemc build --as-of %s --threads %d", AsOf, f.Threads)
	fmt.Fprintln(&script, build)
	p, cur := f.Project, w.Files(f.Project)
	for _, name := range FileNames(cur) {
		fmt.Fprintf(&files, "-- %s --\n%s", name, cur[name])
	}
	var history []*Project
	for i, op := range f.Ops[:f.Step] {
		fmt.Fprintf(&script, "\n# %d: %s\n", i+1, op)
		p, history = advance(p, history, op)
		next := w.Files(p)
		for _, name := range FileNames(next) {
			if next[name] != cur[name] {
				fmt.Fprintf(&script, "cp step%d/%s %s\n", i+1, name, name)
				fmt.Fprintf(&files, "-- step%d/%s --\n%s", i+1, name, next[name])
			}
		}
		for _, name := range FileNames(cur) {
			if _, ok := next[name]; !ok {
				fmt.Fprintf(&script, "rm %s\n", name)
			}
		}
		cur = next
		opCommands(&script, w, p, op, f.Threads)
		if i+1 < f.Step || f.After == "build" {
			fmt.Fprintln(&script, build)
		}
	}
	if f.Diffs[0].What == "replan" {
		fmt.Fprintf(&script, "exec idemc plan --as-of %s\nstdout ' 0 units to run'\n", AsOf)
	}
	return script.String() + files.String()
}

// opCommands writes the commands of an operation's action.
func opCommands(b *strings.Builder, w *Warehouse, p *Project, op Op, threads int) {
	if f, ok := op.fault(); ok {
		opCommands(b, w, p, f, threads)
		return
	}
	build := fmt.Sprintf("idemc build --as-of %s --threads %d", AsOf, threads)
	switch op.Kind {
	case OpDropOutside:
		// As the files say; after a failed materialization switch the
		// relation may be the other kind (the fuzzer asks the catalog).
		m := p.Model(op.Node)
		for _, q := range w.dropStatements(p, op.Node, op.S, m != nil && m.Kind == KindView) {
			fmt.Fprintf(b, "sql '%s'\n", q)
		}
	case OpDropLatest:
		fmt.Fprintf(b, "sql '%s'\n", w.dropLatest())
	case OpKill:
		if op.S != "" {
			fmt.Fprintf(b, "env IDEMC_FAULT=crash:*:%s\n! exec %s\nenv IDEMC_FAULT=\n", op.S, build)
		} else {
			fmt.Fprintf(b, "exec %s &\nsleep %dms\nkill -KILL\n", build, op.N)
		}
	case OpInterrupt:
		fmt.Fprintf(b, "env IDEMC_FAULT=sleep:*:audit_start:300ms\nexec %s &\nsleep %dms\nkill -INT\nwait   # must exit 130\nenv IDEMC_FAULT=\n", build, op.N)
	case OpVerify:
		fmt.Fprintf(b, "exec idemc verify --as-of %s --threads %d\n", AsOf, threads)
	case OpSelect:
		fmt.Fprintf(b, "exec %s --select '%s'\n", build, op.selector())
	}
	if (op.Kind == OpKill || op.Kind == OpInterrupt) && op.Retry {
		fmt.Fprintf(b, "exec idemc retry --threads %d\n", threads)
	}
}

func dsnVar(engine string) string {
	switch engine {
	case "postgres":
		return "IDEMC_PG_DSN"
	case "mysql":
		return "IDEMC_MYSQL_DSN"
	}
	return ""
}

// Summary is one paragraph: where the sequence fails and how.
func (f *Failure) Summary() string {
	var b strings.Builder
	where := "the first build"
	if f.Step > 0 {
		where = fmt.Sprintf("operation %d (%s), then %s", f.Step, f.Ops[f.Step-1], f.After)
	}
	fmt.Fprintf(&b, "%s seed %d (%d threads, %d operations): after %s:\n", f.Engine, f.Seed, f.Threads, f.Step, where)
	for _, d := range f.Diffs {
		fmt.Fprintf(&b, "  %s\n", d)
		if d.What == "exit" || d.What == "interrupt" {
			fmt.Fprintf(&b, "  its output:\n%s\n", indent(lastLines(f.Output, 30), "    | "))
		}
	}
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
