package project

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemc/idemc/compiler/diag"
)

// checkDiag asserts that err, if any, is a diag.List (or *diag.Error) whose
// every entry names a file, so the user always learns where to look.
func checkDiag(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if !errors.Is(err, diag.ErrBadInput) {
		t.Fatalf("error is not bad input (exit 2): %T %v", err, err)
	}
	var list diag.List
	var one *diag.Error
	switch {
	case errors.As(err, &list):
		if len(list) == 0 {
			t.Fatalf("empty diag.List returned as an error")
		}
		for _, e := range list {
			if e.Path == "" || e.Line < 0 || e.Col < 0 || e.Msg == "" {
				t.Fatalf("diagnostic without a position or message: %#v", e)
			}
		}
	case errors.As(err, &one):
		if one.Path == "" {
			t.Fatalf("diagnostic without a path: %#v", one)
		}
	default:
		t.Fatalf("error is %T, not a diag.List: %v", err, err)
	}
}

// fuzzLayers are settings layers for the fuzzed model, as a project might
// have them.
func fuzzLayers() (*layer, []folderLayer) {
	base := &layer{defined: map[string]bool{"materialized": true, "tags": true}, where: FileName,
		cfg: ModelConfig{Materialized: "view", Tags: StringList{"all"}}}
	folders := []folderLayer{{pattern: "staging/*", layer: layer{defined: map[string]bool{"materialized": true, "checks": true, "checks.min_rows": true}, where: FileName,
		cfg: ModelConfig{Materialized: "table", Checks: map[string]CheckSpec{"min_rows": {Value: int64(1)}}}}}}
	return base, folders
}

// FuzzLoadHeader: any model file text is either read or refused with
// positioned errors; it never panics, and the body keeps its line numbers.
func FuzzLoadHeader(f *testing.F) {
	for _, s := range []string{
		"SELECT 1\n",
		"/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1\n",
		"-- c\n/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\n[checks]\nunique = [\"k\"]\n*/\nSELECT d, k FROM t\n",
		"/* idemc\nlookback = \"x\"\n*/",
		"/* idemc\nwatermark = { column = \"u\", lag = \"15m\", overlap = \"1h\" }\n*/\nSELECT 1",
		"/* idemc",
		"/* idemc */",
		"/*idemc*/",
		"/* idemc\n[checks.unique]\n[checks.unique.x]\n*/",
		"/* idemc\n[[checks]]\n*/",
		"/* idemc\nstart = 2026-07-01T00:00:00Z\n*/",
		"/* idemc\na.b.c = 1\n\"q\".x = 2\n*/",
	} {
		f.Add(s)
	}
	base, folders := fuzzLayers()
	f.Fuzz(func(t *testing.T, text string) {
		for _, rel := range []string{"models/m.sql", "models/staging/m.sql"} {
			m, err := parseModel(rel, text, base, folders)
			checkDiag(t, err)
			if m == nil {
				if err == nil {
					t.Fatalf("no model and no error")
				}
				continue
			}
			if m.Name != "m" || m.Path != rel {
				t.Fatalf("model %q at %q", m.Name, m.Path)
			}
			if strings.Count(m.Body, "\n") != strings.Count(text, "\n") {
				t.Fatalf("body has %d newlines, text %d", strings.Count(m.Body, "\n"), strings.Count(text, "\n"))
			}
			if m.Config.Materialized == "" {
				t.Fatalf("no materialized default")
			}
			for k, p := range m.HeaderLine {
				if p.Path != rel || p.Line < 1 || p.Line > strings.Count(text, "\n")+1 {
					t.Fatalf("HeaderLine[%q] = %+v outside the file", k, p)
				}
			}
		}
	})
}

// FuzzProjectFile: any project.toml text is either read or refused with
// errors that name project.toml; it never panics.
func FuzzProjectFile(f *testing.F) {
	for _, s := range []string{
		baseToml,
		baseToml + "[models]\nmaterialized = \"table\"\n[models.\"staging/*\"]\nschema = \"stg\"\nchecks.min_rows = 1\n",
		"name = \"t\"\n[targets.pg]\nengine = \"postgres\"\ndsn = \"${PG}\"\nport = 5432\n[sources.raw]\nschema = \"raw\"\ntables = [\"a\"]\n[seeds]\nschema = \"raw\"\n[vars]\nx = 1\n[run]\nthreads = 2\n",
		"name = 1\ntargets = 2\nvars = 3\nmodels = 4\n",
		"[targets]\na = 1\n[sources]\nb = 2\n",
		"name = \"t\"\n[models]\nchecks = 1\nwatermark = 2\n",
		"name = \"t\"\n[models.\"a.b\"]\n[models.\"a.b\".checks]\nx = 1\n",
		"name = \"t\n",
		"[[targets]]\n",
		"name = \"t\"\ndefault_target = \"x\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var errs diag.List
		p := &Project{}
		base, folders := p.parseProjectFile(text, &errs)
		checkDiag(t, errs.Err())
		for _, e := range errs {
			if e.Path != FileName {
				t.Fatalf("error names %q, not %s: %v", e.Path, FileName, e)
			}
		}
		if len(errs) > 0 {
			return
		}
		if base == nil || p.Targets == nil || p.Sources == nil || p.Vars == nil {
			t.Fatalf("accepted but incomplete: %+v", p)
		}
		for _, fl := range folders {
			if fl.pattern == "" && !strings.Contains(text, `""`) {
				t.Fatalf("empty folder pattern")
			}
		}
	})
}
