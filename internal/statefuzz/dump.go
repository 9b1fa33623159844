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
	Names  []string // column names, sorted, but the row lineage columns
	Rows   [][]string
	// Lineage describes a row whose lineage columns are not a run's stamp
	// at the sequences' logical time ("" when every row's are, or the
	// relation has none). Their values are otherwise not compared: each
	// build writes its own run id.
	Lineage string
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
	var data []int // the columns compared by value
	for _, i := range order {
		r.Cols = append(r.Cols, names[i]+" "+types[names[i]])
		if !plan.IsLineageColumn(names[i]) {
			r.Names = append(r.Names, names[i])
			data = append(data, i)
		}
	}
	for _, row := range rows {
		out := make([]string, len(data))
		for j, i := range data {
			out[j] = normalize(row[i])
		}
		r.Rows = append(r.Rows, out)
		if r.Lineage == "" {
			r.Lineage = lineageStamp(names, row)
		}
	}
	sortRows(r.Rows)
	return r, nil
}

// lineageStamp checks one row's lineage columns: a run id and the logical
// time of every build of a sequence (AsOf). "" when they are, or absent.
func lineageStamp(names, row []string) string {
	for i, n := range names {
		switch {
		case strings.EqualFold(n, plan.LineageRunID) && (row[i] == "" || row[i] == "NULL"):
			return "a row has no " + plan.LineageRunID
		case strings.EqualFold(n, plan.LineageAsOf) && wholeSeconds(normalize(row[i])) != normalize(AsOf):
			return fmt.Sprintf("a row has %s %s, not the run's logical time %s", plan.LineageAsOf, row[i], AsOf)
		}
	}
	return ""
}

// wholeSeconds drops a zero fraction (MariaDB's DATETIME(6) prints .000000).
func wholeSeconds(v string) string {
	if j := strings.LastIndexByte(v, '.'); j > 0 && strings.Trim(v[j+1:], "0") == "" {
		return v[:j]
	}
	return v
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
