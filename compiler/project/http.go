package project

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/compiler/diag"
)

// HTTPSource is one [http.NAME] table: a raw relation loaded from a JSON
// API (DESIGN §13, docs/http.md). Headers and Cache keep their ${VAR}
// references as written: they are expanded only when the source is
// fetched, so a secret never reaches the plan, target/ or the ledger.
type HTTPSource struct {
	Name       string
	URL        string
	Records    string // dotted path to the record array; "" = the body is the array
	PrimaryKey []string
	Schema     string
	Next       Paging
	Since      *Since
	Headers    map[string]string
	Cache      string
	// ColumnTypes are declared kinds by column name.
	ColumnTypes map[string]seed.Kind
	MaxPages    int
	// OnSchemaChange is what a page with a new field (or a field of
	// another type) does to the table; default "append_new_columns":
	// an API adding a field is ordinary.
	OnSchemaChange string
	Line           int // of [http.NAME] in project.toml
}

// Paging is how the next page's URL is found.
type Paging struct {
	Style string // link, json, cursor, page, none
	Path  string // json: the next URL's path; cursor: the cursor's path
	Param string // cursor and page: the query parameter
}

// Since is a source's read window from a watermark.
type Since struct {
	Param        string
	Column       string
	Lag, Overlap time.Duration
}

// httpKeys are the settings of an [http.NAME] table.
var httpKeys = []string{"url", "records", "primary_key", "schema", "next", "since", "headers", "cache", "column_types", "max_pages", "on_schema_change"}

var sinceKeys = []string{"param", "column", "lag", "overlap"}

// DefaultMaxPages stops a pagination loop that never ends.
const DefaultMaxPages = 10000

type rawHTTP struct {
	URL         string            `toml:"url"`
	Records     string            `toml:"records"`
	PrimaryKey  []string          `toml:"primary_key"`
	Schema      string            `toml:"schema"`
	Next        string            `toml:"next"`
	Since       *rawSince         `toml:"since"`
	Headers     map[string]string `toml:"headers"`
	Cache       string            `toml:"cache"`
	ColumnTypes map[string]string `toml:"column_types"`
	MaxPages    *int              `toml:"max_pages"`
	OnSchema    string            `toml:"on_schema_change"`
}

type rawSince struct {
	Param   string `toml:"param"`
	Column  string `toml:"column"`
	Lag     string `toml:"lag"`
	Overlap string `toml:"overlap"`
}

var headerName = regexp.MustCompile(`^[A-Za-z0-9!#$%&'*+.^_` + "`" + `|~-]+$`)

// parseHTTP reads the [http.NAME] tables. Unknown keys inside are left
// undecoded, so the caller reports them with the nearest valid key.
func (p *Project) parseHTTP(f *projectFile, raw map[string]toml.Primitive) {
	text, md, errs := f.text, f.md, f.errs
	for _, name := range sortedKeys(raw) {
		line := keyLine(text, toml.Key{"http", name})
		if notTable(md, "http", name) {
			errs.Add(FileName, line, 0, "http.%s must be a table: write it as an [http.%s] section with url and primary_key", name, name)
			continue
		}
		var r rawHTTP
		if err := md.PrimitiveDecode(raw[name], &r); err != nil {
			errs.Append(tomlError(FileName, 0, err))
			continue
		}
		at := func(k ...string) int {
			if l := keyLine(text, append(toml.Key{"http", name}, k...)); l > 0 {
				return l
			}
			return line
		}
		bad := func(k, format string, args ...any) {
			errs.Add(FileName, at(strings.Split(k, ".")...), 0, "[http.%s] %s", name, fmt.Sprintf(format, args...))
		}
		s := &HTTPSource{Name: name, URL: r.URL, Records: r.Records, PrimaryKey: r.PrimaryKey, Headers: r.Headers, Cache: r.Cache, MaxPages: DefaultMaxPages, Line: line}
		if !strings.HasPrefix(r.URL, "http://") && !strings.HasPrefix(r.URL, "https://") && !strings.HasPrefix(r.URL, "${") {
			bad("url", "needs url = \"https://…\" (the first page), not %q", r.URL)
		}
		if len(r.PrimaryKey) == 0 {
			bad("primary_key", "needs primary_key = [\"id\"]: records are merged by it, never appended")
		}
		for _, k := range r.PrimaryKey {
			if k == "" {
				bad("primary_key", "primary_key names an empty column")
			}
		}
		schema, derr := expandSchema(r.Schema, "[http."+name+"] schema", at("schema"))
		if derr != nil {
			errs.Append(derr)
		}
		s.Schema = schema
		var perr string
		if s.Next, perr = ParsePaging(r.Next); perr != "" {
			bad("next", "%s", perr)
		}
		if r.Since != nil {
			s.Since = parseSince(r.Since, bad)
		}
		for _, h := range sortedKeys(r.Headers) {
			if !headerName.MatchString(h) {
				bad("headers", "header name %q is not a valid HTTP header name", h)
			}
		}
		if r.MaxPages != nil {
			if *r.MaxPages < 1 {
				bad("max_pages", "max_pages must be at least 1, not %d", *r.MaxPages)
			}
			s.MaxPages = *r.MaxPages
		}
		s.OnSchemaChange = "append_new_columns"
		switch r.OnSchema {
		case "":
		case "fail", "append_new_columns", "sync_all_columns":
			s.OnSchemaChange = r.OnSchema
		default:
			bad("on_schema_change", "on_schema_change = %q: use \"append_new_columns\" (the default), \"sync_all_columns\" or \"fail\"", r.OnSchema)
		}
		s.ColumnTypes = map[string]seed.Kind{}
		for _, col := range sortedKeys(r.ColumnTypes) {
			k, ok, err := seed.ParseKindErr(r.ColumnTypes[col])
			if err != nil {
				errs.Add(FileName, at("column_types", col), 0, "http.%s.column_types.%s = %v", name, col, err)
				continue
			}
			if !ok {
				errs.Add(FileName, at("column_types", col), 0, "http.%s.column_types.%s = %q is not a column type%s", name, col, r.ColumnTypes[col], kindHint(r.ColumnTypes[col]))
				continue
			}
			s.ColumnTypes[col] = k
		}
		p.HTTP = append(p.HTTP, s)
	}
}

// parseSince reads since = { param, column, lag, overlap }.
func parseSince(r *rawSince, bad func(k, format string, args ...any)) *Since {
	s := &Since{Param: r.Param, Column: r.Column}
	if s.Param == "" || s.Column == "" {
		bad("since", "since needs param and column: since = { param = \"updated_since\", column = \"updated_at\" }")
	}
	for _, d := range []struct {
		key string
		v   string
		out *time.Duration
	}{{"lag", r.Lag, &s.Lag}, {"overlap", r.Overlap, &s.Overlap}} {
		if d.v == "" {
			continue
		}
		v, err := time.ParseDuration(d.v)
		if err != nil || v < 0 {
			bad("since", "since.%s = %q is not a duration: write it like \"15m\" or \"1h\"", d.key, d.v)
		}
		*d.out = v
	}
	return s
}

// ParsePaging reads a next = "…" setting; the message says what is wrong.
func ParsePaging(v string) (Paging, string) {
	style, rest, _ := strings.Cut(v, ":")
	switch {
	case v == "" || v == "none":
		return Paging{Style: "none"}, ""
	case v == "link":
		return Paging{Style: "link"}, ""
	case style == "json" && rest != "":
		return Paging{Style: "json", Path: rest}, ""
	case style == "page" && rest != "":
		return Paging{Style: "page", Param: rest}, ""
	case style == "cursor":
		path, param, ok := strings.Cut(rest, ":")
		if ok && path != "" && param != "" {
			return Paging{Style: "cursor", Path: path, Param: param}, ""
		}
	}
	return Paging{}, fmt.Sprintf("next = %q is not a pagination: use \"link\", \"json:<path>\", \"cursor:<path>:<param>\", \"page:<param>\" or \"none\"", v)
}

// HTTPSourceNamed returns the HTTP source named name, or nil.
func (p *Project) HTTPSourceNamed(name string) *HTTPSource {
	for _, s := range p.HTTP {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// checkHTTPNames reports an HTTP source named like a seed or a model: a
// ref() must resolve to one node.
func (p *Project) checkHTTPNames(errs *diag.List) {
	for _, s := range p.HTTP {
		if p.Seed(s.Name) != nil {
			errs.Add(FileName, s.Line, 0, "[http.%s] has the name of seeds/%s.csv: rename one, ref(%q) must name one relation", s.Name, s.Name, s.Name)
		}
		for _, m := range p.Models {
			if m.Name == s.Name {
				errs.Add(FileName, s.Line, 0, "[http.%s] has the name of model %s: rename one, ref(%q) must name one relation", s.Name, m.Path, s.Name)
			}
		}
	}
}
