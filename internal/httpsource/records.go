package httpsource

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters/seed"
)

// KeyColumn and HashColumn are the columns idemc adds to an HTTP source's
// table: the record's primary key as canonical JSON text (never NULL, so
// the merge matches NULL keys too) and a hash of the record's content, so
// that an unchanged record is never written again.
const (
	KeyColumn  = "_idemc_key"
	HashColumn = "_idemc_hash"
)

// Lookup follows a dotted path ("data.items") into a decoded JSON value;
// "" is the value itself.
func Lookup(doc any, path string) (any, bool) {
	if path == "" {
		return doc, true
	}
	cur := doc
	for _, part := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Records extracts the record array at path.
func Records(doc any, path string) ([]map[string]any, error) {
	v, ok := Lookup(doc, path)
	where := "the body"
	if path != "" {
		where = fmt.Sprintf("records = %q", path)
	}
	if !ok {
		return nil, fmt.Errorf("%s: no such field in the response (%s)", where, describe(doc))
	}
	if v == nil {
		return nil, nil // many APIs answer an empty page with null
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is %s, not an array of records", where, describe(v))
	}
	out := make([]map[string]any, len(arr))
	for i, r := range arr {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("record %d is %s, not an object", i, describe(r))
		}
		out[i] = m
	}
	return out, nil
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// scalarText is a scalar's text ("" for objects and arrays).
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// TableOptions say how a page's records become a typed table.
type TableOptions struct {
	PrimaryKey []string
	// Kinds fix a column's kind: column_types, then the kinds of the
	// columns the destination already has (so every page lands in the
	// table's types). Other columns are inferred from the page's values.
	Declared, Existing map[string]seed.Kind
	URL                string // the page, for messages
}

// Table types a page's records for every engine: one column per field
// (primary key first, then the others in order of appearance), values in
// their kind, NULL for null or absent, objects and arrays as JSON text,
// plus KeyColumn and HashColumn. A record without a primary key field, or
// two records with one key, is an error naming the page and the record.
func Table(recs []map[string]any, o TableOptions) (*seed.Table, error) {
	var names []string
	seen := map[string]bool{}
	for _, k := range o.PrimaryKey {
		names, seen[k] = append(names, k), true
	}
	for _, r := range recs {
		var extra []string
		for k := range r {
			if !seen[k] && k != KeyColumn && k != HashColumn {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra) // a map has no order: sorted within each record
		for _, k := range extra {
			names, seen[k] = append(names, k), true
		}
	}
	keys := make([]string, len(recs))
	hashes := make([]string, len(recs))
	byKey := map[string]int{}
	for i, r := range recs {
		kv := make([]any, len(o.PrimaryKey))
		for j, k := range o.PrimaryKey {
			v, ok := r[k]
			if !ok {
				return nil, fmt.Errorf("page %s: record %d has no primary key field %q", o.URL, i, k)
			}
			if _, isObj := v.(map[string]any); isObj {
				return nil, fmt.Errorf("page %s: record %d: primary key field %q is an object", o.URL, i, k)
			}
			kv[j] = v
		}
		kb, _ := json.Marshal(kv)
		keys[i] = string(kb)
		if j, dup := byKey[keys[i]]; dup {
			return nil, fmt.Errorf("page %s: records %d and %d have the same primary key %s: refused, as a merge model refuses a batch that repeats a key", o.URL, j, i, keys[i])
		}
		byKey[keys[i]] = i
		rb, _ := json.Marshal(r) // map keys sorted: the same record, the same bytes
		h := sha256.Sum256(rb)
		hashes[i] = hex.EncodeToString(h[:12])
	}
	t := &seed.Table{Rows: make([][]any, len(recs))}
	for i := range t.Rows {
		t.Rows[i] = make([]any, len(names)+2)
	}
	for j, name := range names {
		col, err := typeColumn(recs, name, j, t.Rows, o)
		if err != nil {
			return nil, err
		}
		t.Columns = append(t.Columns, col)
	}
	t.Columns = append(t.Columns, seed.Column{Name: KeyColumn, Kind: seed.Text}, seed.Column{Name: HashColumn, Kind: seed.Text})
	for i := range t.Rows {
		t.Rows[i][len(names)], t.Rows[i][len(names)+1] = keys[i], hashes[i]
	}
	return t, nil
}

func kindFor(m map[string]seed.Kind, name string) (seed.Kind, bool) {
	if k, ok := m[name]; ok {
		return k, true
	}
	for n, k := range m {
		if strings.EqualFold(n, name) {
			return k, true
		}
	}
	return "", false
}

// typeColumn fills column j of rows and returns its column.
func typeColumn(recs []map[string]any, name string, j int, rows [][]any, o TableOptions) (seed.Column, error) {
	col := seed.Column{Name: name}
	why := ""
	if k, ok := kindFor(o.Declared, name); ok {
		col.Kind, col.Declared, why = k, true, "column_types declares it"
	} else if k, ok := kindFor(o.Existing, name); ok {
		col.Kind, why = k, "the table's column is "+string(k)+"; declare column_types or run with --full-refresh to retype it"
	} else {
		col.Kind = infer(recs, name)
	}
	for i, r := range recs {
		v, err := convert(r[name], col.Kind)
		if err != nil {
			return col, fmt.Errorf("page %s: record %d: field %q: %v (%s)", o.URL, i, name, err, why)
		}
		rows[i][j] = v
	}
	return col, nil
}

// fit is what a value can be, most specific first.
func fits(v any) []seed.Kind {
	switch x := v.(type) {
	case json.Number:
		if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return []seed.Kind{seed.BigInt, seed.Double}
		}
		if f, err := strconv.ParseFloat(x.String(), 64); err == nil && !math.IsInf(f, 0) {
			return []seed.Kind{seed.Double}
		}
	case bool:
		return []seed.Kind{seed.Boolean}
	case string:
		if _, ok := parseDate(x); ok {
			return []seed.Kind{seed.Date, seed.Timestamp}
		}
		if _, ok := parseTime(x); ok {
			return []seed.Kind{seed.Timestamp}
		}
	}
	return nil
}

// infer is the first kind every non-null value fits, else text; a column
// of nulls is text.
func infer(recs []map[string]any, name string) seed.Kind {
	ok := map[seed.Kind]bool{seed.BigInt: true, seed.Double: true, seed.Boolean: true, seed.Date: true, seed.Timestamp: true}
	nonNull := false
	for _, r := range recs {
		v := r[name]
		if v == nil {
			continue
		}
		nonNull = true
		f := map[seed.Kind]bool{}
		for _, k := range fits(v) {
			f[k] = true
		}
		for k := range ok {
			ok[k] = ok[k] && f[k]
		}
	}
	if !nonNull {
		return seed.Text
	}
	for _, k := range seed.Kinds {
		if ok[k] {
			return k
		}
	}
	return seed.Text
}

// convert turns a JSON value into kind k's Go value (nil for null).
func convert(v any, k seed.Kind) (any, error) {
	if v == nil {
		return nil, nil
	}
	if p, s, ok := k.Decimal(); ok {
		return convertDecimal(v, p, s)
	}
	switch k {
	case seed.Text:
		if s, ok := v.(string); ok {
			return s, nil
		}
		if s := scalarText(v); s != "" {
			return s, nil
		}
		b, _ := json.Marshal(v)
		return string(b), nil
	case seed.BigInt:
		switch x := v.(type) {
		case json.Number:
			if n, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
				return n, nil
			}
		case string:
			if n, err := strconv.ParseInt(x, 10, 64); err == nil {
				return n, nil
			}
		}
	case seed.Double:
		s := scalarText(v)
		if _, isBool := v.(bool); !isBool && s != "" {
			if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return f, nil
			}
		}
	case seed.Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case seed.Date, seed.Timestamp:
		if s, ok := v.(string); ok {
			if t, ok := parseDate(s); ok {
				return t, nil
			}
			if t, ok := parseTime(s); ok && k == seed.Timestamp {
				return t, nil
			}
		}
	}
	b, _ := json.Marshal(v)
	return nil, fmt.Errorf("%s is not a %s", b, k)
}

// convertDecimal reads a JSON number (decoded exactly, UseNumber) or a
// numeric string, as APIs often send money, into decimal(p,s).
func convertDecimal(v any, p, s int) (any, error) {
	var text string
	switch x := v.(type) {
	case json.Number:
		text = x.String()
	case string:
		text = x
	default:
		b, _ := json.Marshal(v)
		return nil, fmt.Errorf("%s is not a decimal(%d,%d)", b, p, s)
	}
	d, err := seed.ParseDecimal(text, p, s)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func parseDate(s string) (time.Time, bool) {
	if len(s) != 10 {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02", s)
	return t, err == nil
}

// parseTime reads RFC 3339 timestamps (with a zone: stored as UTC) and
// wall-clock ones ("2026-07-01 10:00:00", "2026-07-01T10:00:00.5").
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// TimeOf reads a watermark column's value (a timestamp, date or RFC 3339
// text) as a time.
func TimeOf(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		if t, ok := parseDate(x); ok {
			return t, true
		}
		return parseTime(x)
	}
	return time.Time{}, false
}
