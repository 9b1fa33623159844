package sqlgen

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Seed kinds, inferred from a CSV file's values for engines that have no
// CSV reader of their own. DuckDB's read_csv infers the same kinds.
const (
	KindBigInt    = "bigint"
	KindDouble    = "double"
	KindBoolean   = "boolean"
	KindDate      = "date"
	KindTimestamp = "timestamp"
	KindText      = "text"
)

// CSVColumn is one column of a seed and its inferred kind.
type CSVColumn struct {
	Name string
	Kind string
}

// CSVFile is a parsed seed: header, kinds and rows ("" is NULL).
type CSVFile struct {
	Columns []CSVColumn
	Rows    [][]string
}

// ReadCSV reads a seed file and infers each column's kind from all its
// non-empty values: the narrowest of bigint, double, boolean, date,
// timestamp that fits every value, else text.
func ReadCSV(path string) (*CSVFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = false
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the header: %w", path, err)
	}
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := &CSVFile{Rows: rows}
	for i, name := range header {
		out.Columns = append(out.Columns, CSVColumn{Name: name, Kind: inferKind(rows, i)})
	}
	return out, nil
}

func inferKind(rows [][]string, col int) string {
	fits := map[string]bool{KindBigInt: true, KindDouble: true, KindBoolean: true, KindDate: true, KindTimestamp: true}
	seen := false
	for _, row := range rows {
		if col >= len(row) || row[col] == "" {
			continue
		}
		seen = true
		v := row[col]
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			fits[KindBigInt] = false
		}
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			fits[KindDouble] = false
		}
		if v != "true" && v != "false" {
			fits[KindBoolean] = false
		}
		if _, err := time.Parse("2006-01-02", v); err != nil {
			fits[KindDate] = false
		}
		if !isTimestamp(v) {
			fits[KindTimestamp] = false
		}
	}
	if !seen {
		return KindText
	}
	for _, k := range []string{KindBigInt, KindDouble, KindBoolean, KindDate, KindTimestamp} {
		if fits[k] {
			return k
		}
	}
	return KindText
}

func isTimestamp(v string) bool {
	for _, l := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04:05.999999", "2006-01-02T15:04:05.999999"} {
		if _, err := time.Parse(l, v); err == nil {
			return true
		}
	}
	return false
}

// InsertBatches writes a seed's rows into table (a qualified name) with
// multi-row INSERTs of batch rows each, through exec with "?" parameters;
// an empty value is NULL. For engines without a bulk CSV path of their own.
func (f *CSVFile) InsertBatches(exec func(q string, args ...any) error, table string, quotedCols []string, batch int) error {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(f.Columns)), ", ") + ")"
	for start := 0; start < len(f.Rows); start += batch {
		end := min(start+batch, len(f.Rows))
		args := make([]any, 0, (end-start)*len(f.Columns))
		for _, rec := range f.Rows[start:end] {
			for i := range f.Columns {
				if i >= len(rec) || rec[i] == "" {
					args = append(args, nil)
				} else {
					args = append(args, rec[i])
				}
			}
		}
		q := fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", table, strings.Join(quotedCols, ", "), strings.TrimSuffix(strings.Repeat(row+", ", end-start), ", "))
		if err := exec(q, args...); err != nil {
			return err
		}
	}
	return nil
}
