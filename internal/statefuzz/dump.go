package statefuzz

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// Rel is the content of one relation, normalized so that two warehouses of
// the same engine can be compared: columns sorted by name (a column added
// by a schema sync lands last, a rebuild puts it where the SELECT has it;
// that order is not data), rows as text sorted.
type Rel struct {
	Exists bool
	View   bool     // a view, not a table: a switched materialization must show
	Broken string   // the SELECT failed (a view over a dropped table); the error class
	Cols   []string // "name type", sorted by name
	Names  []string // column names, sorted
	Rows   [][]string
}

// Dump is a warehouse's state: every seed's and model's relation by node
// name. idemc's own tables (idemc_audit, idemc_runs, idemc_state, …) are
// never read, nor relations the project does not define (see the package
// doc on orphans).
type Dump map[string]*Rel

// Dump reads every relation p defines.
func (w *Warehouse) Dump(ctx context.Context, p *Project) (Dump, error) {
	d := Dump{}
	err := w.with(ctx, func(s adapters.Session) error {
		for node, loc := range p.Locations(w.Schemas) {
			r, err := readRel(ctx, s, w.Dialect(), loc)
			if err != nil {
				return fmt.Errorf("%s: %w", node, err)
			}
			d[node] = r
		}
		return nil
	})
	return d, err
}

func readRel(ctx context.Context, s adapters.Session, d adapters.Dialect, loc Location) (*Rel, error) {
	rel := plan.Relation{Schema: loc.Schema, Name: loc.Name}
	cols, ok, err := s.Relation(ctx, rel)
	if err != nil || !ok {
		return &Rel{}, err
	}
	r := &Rel{Exists: true}
	if r.View, err = isView(ctx, s, d, loc); err != nil {
		return nil, err
	}
	names, rows, err := s.Query(ctx, "SELECT * FROM "+d.Qualify(rel), 0)
	if err != nil {
		r.Broken = "select failed"
		return r, nil
	}
	types := map[string]string{}
	for _, c := range cols {
		types[c.Name] = typeName(c.Type)
	}
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return names[order[a]] < names[order[b]] })
	for _, i := range order {
		r.Names = append(r.Names, names[i])
		r.Cols = append(r.Cols, names[i]+" "+types[names[i]])
	}
	for _, row := range rows {
		out := make([]string, len(order))
		for j, i := range order {
			out[j] = normalize(row[i])
		}
		r.Rows = append(r.Rows, out)
	}
	sortRows(r.Rows)
	return r, nil
}

// isView reads the relation's type from information_schema, which all
// three engines have.
func isView(ctx context.Context, s adapters.Session, d adapters.Dialect, loc Location) (bool, error) {
	q := fmt.Sprintf("SELECT table_type FROM information_schema.tables WHERE table_schema = %s AND table_name = %s",
		d.String(loc.Schema), d.String(loc.Name))
	_, rows, err := s.Query(ctx, q, 1)
	if err != nil || len(rows) == 0 {
		return false, err
	}
	return strings.Contains(strings.ToUpper(rows[0][0]), "VIEW"), nil
}

func sortRows(rows [][]string) {
	sort.Slice(rows, func(a, b int) bool { return strings.Join(rows[a], "\t") < strings.Join(rows[b], "\t") })
}

// normalize makes one value's text comparable: numbers with a fraction or
// an exponent are printed in one form (drivers differ between 12.50 and
// 12.5), timestamps lose the "T" and a zero UTC offset.
func normalize(v string) string {
	if strings.ContainsAny(v, ".eE") {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return strconv.FormatFloat(f, 'g', 12, 64)
		}
	}
	if len(v) >= 19 && v[4] == '-' && v[10] == 'T' {
		v = v[:10] + " " + v[11:]
	}
	v = strings.TrimSuffix(strings.TrimSuffix(v, "Z"), "+00:00")
	return v
}

// column returns the index of a column, or -1.
func (r *Rel) column(name string) int {
	for i, n := range r.Names {
		if n == name {
			return i
		}
	}
	return -1
}

// text is a short rendering for failure messages.
func (r *Rel) text() string {
	if r == nil || !r.Exists {
		return "(relation missing)"
	}
	if r.Broken != "" {
		return "(relation exists, " + r.Broken + ")"
	}
	var b strings.Builder
	if r.View {
		b.WriteString("a view: ")
	}
	fmt.Fprintf(&b, "columns %s; %d rows", strings.Join(r.Cols, ", "), len(r.Rows))
	for i, row := range r.Rows {
		if i == 12 {
			fmt.Fprintf(&b, "\n      …")
			break
		}
		fmt.Fprintf(&b, "\n      %s", strings.Join(row, " | "))
	}
	return b.String()
}

// typeName is a column type as compared: string types are one ("text"),
// since their lengths are not compared (a from-scratch CREATE TABLE AS on
// MySQL picks varchar(n) from the data where a retype to a string gives
// text; both hold the same values).
func typeName(t string) string {
	t = strings.ToLower(t)
	switch t {
	case "varchar", "char", "character varying", "character", "bpchar", "tinytext", "mediumtext", "longtext", "string":
		return "text"
	}
	return t
}
