// Package scaffold writes a new, working idemc project (`idemc init`): a
// project.toml with comments and a target for the chosen engine, one seed,
// one view, one partitioned incremental model with checks and a singular
// test. Its dates are relative to the day it is created (the model starts
// on the first day of the previous month, where the seed's rows are), so a
// plain `idemc build` has partitions to load on any day.
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
	"time"
)

//go:embed files
var files embed.FS

// Engines are the engines a scaffold can target, default first.
var Engines = []string{"duckdb", "postgres", "mysql", "snowflake", "bigquery", "spark"}

// ErrNotEmpty is returned for a folder that already holds files: init
// never overwrites anything.
var ErrNotEmpty = errors.New("is not empty")

// Options say what to create.
type Options struct {
	Dir    string
	Engine string    // one of Engines
	Now    time.Time // the day the dates are relative to
}

// data is what the templates read.
type data struct {
	Name, Engine string
	Start        string // the model's first partition
	Days         []string
}

// Write creates the project in o.Dir (made when missing) and returns the
// files it wrote, slash-separated and sorted. It refuses a folder that
// holds anything, and creates each file exclusively, so that nothing that
// exists is ever replaced.
func Write(o Options) ([]string, error) {
	if !valid(o.Engine) {
		return nil, fmt.Errorf("unknown engine %q: use one of %s", o.Engine, strings.Join(Engines, ", "))
	}
	if err := checkEmpty(o.Dir); err != nil {
		return nil, err
	}
	d := newData(o)
	var written []string
	err := fs.WalkDir(files, "files", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, "files/"), ".tmpl")
		rel = strings.ReplaceAll(rel, "dot-", ".") // embed skips dot files
		text, err := render(p, d)
		if err != nil {
			return err
		}
		dst := filepath.Join(o.Dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(text); err != nil {
			f.Close()
			return err
		}
		written = append(written, rel)
		return f.Close()
	})
	sort.Strings(written)
	return written, err
}

func valid(engine string) bool {
	for _, e := range Engines {
		if e == engine {
			return true
		}
	}
	return false
}

// checkEmpty accepts a missing folder or an empty one.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	var names []string
	for i, e := range entries {
		if i == 3 {
			names = append(names, "…")
			break
		}
		names = append(names, e.Name())
	}
	return fmt.Errorf("%s %w (it holds %s): idemc init writes only into a new or empty folder, and wrote nothing", dir, ErrNotEmpty, strings.Join(names, ", "))
}

var notName = regexp.MustCompile(`[^a-z0-9_]+`)

func newData(o Options) data {
	name := "my_project"
	if abs, err := filepath.Abs(o.Dir); err == nil {
		if n := strings.Trim(notName.ReplaceAllString(strings.ToLower(filepath.Base(abs)), "_"), "_"); n != "" {
			name = n
		}
	}
	now := o.Now.UTC()
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0)
	d := data{Name: name, Engine: o.Engine, Start: start.Format(time.DateOnly)}
	for i := 0; i < 3; i++ {
		d.Days = append(d.Days, start.AddDate(0, 0, i).Format(time.DateOnly))
	}
	return d
}

func render(p string, d data) ([]byte, error) {
	b, err := files.ReadFile(p)
	if err != nil || !strings.HasSuffix(p, ".tmpl") {
		return b, err
	}
	t, err := template.New(path.Base(p)).Delims("[[", "]]").Parse(string(b))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err = t.Execute(&out, d)
	return out.Bytes(), err
}
