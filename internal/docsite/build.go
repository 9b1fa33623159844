package docsite

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

//go:embed assets/*.js assets/*.css templates/*.html
var files embed.FS

// Build compiles the project (no units are planned) and reads what the
// target can tell: column types, the audit table and the runs. A target
// that cannot be read leaves Site.Warehouse saying why; the rest of the
// site is still built.
func Build(ctx context.Context, p *project.Project, opts compiler.Options) (*Site, error) {
	opts.Models, opts.Seeds, opts.Lineage = false, false, true
	pl, err := compiler.Compile(p, opts)
	if err != nil {
		return nil, err
	}
	ad, ok := adapters.Lookup(pl.Engine)
	if !ok {
		return nil, fmt.Errorf("engine %q is not in this build", pl.Engine)
	}
	s := fromPlan(p, pl, ad.Dialect, opts.AsOf)
	rows, err := readWarehouse(ctx, s, p, pl, opts)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err != nil {
		forgetWarehouse(s) // what was read before the error is not shown as if complete
		s.Warehouse = err.Error()
	} else {
		fillStatus(s, p, pl, rows, opts.AsOf)
	}
	resolveLineage(s, p, pl)
	layout(s)
	return s, nil
}

// Write replaces dir with the site: index.html, models/<name>.html,
// data.js and assets/. It returns the number of files written.
func Write(dir string, s *Site) (int, error) {
	tpl, err := template.New("").Funcs(template.FuncMap{"json": jsonText, "deref": func(b *bool) bool { return b != nil && *b }}).ParseFS(files, "templates/*.html")
	if err != nil {
		return 0, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "assets"), 0o755); err != nil {
		return 0, err
	}
	n := 0
	write := func(rel string, b []byte) error {
		n++
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	}
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return 0, err
	}
	// A script, not a .json file: browsers refuse fetch() on file://.
	if err := write("data.js", append(append([]byte("window.IDEMC_DOCS = "), data...), ";\n"...)); err != nil {
		return n, err
	}
	assets, _ := fs.Glob(files, "assets/*")
	for _, a := range assets {
		b, _ := files.ReadFile(a)
		if err := write(a, b); err != nil {
			return n, err
		}
	}
	page := func(rel, name string, v any) error {
		var b bytes.Buffer
		if err := tpl.ExecuteTemplate(&b, name, v); err != nil {
			return err
		}
		return write(rel, b.Bytes())
	}
	if err := page("index.html", "index.html", s); err != nil {
		return n, err
	}
	for _, node := range s.Nodes {
		if err := page(filepath.Join("models", node.Name+".html"), "model.html", modelPage{Site: s, Node: node}); err != nil {
			return n, err
		}
	}
	return n, nil
}

// modelPage is what a model's page template reads.
type modelPage struct {
	Site *Site
	Node *Node
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
