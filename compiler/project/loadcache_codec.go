package project

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/idemc/idemc/internal/bincodec"
)

// The load cache writes its entries in a compact form of its own rather
// than gob's: gob decoded field by field through reflection, read each
// message into a buffer of its own and allocated every string, a map of
// header lines (each with the file's path again) and every check's raw
// TOML value (an interface: a type name, then reflection); that was most
// of a warm compile's decoding of the cache, and its encoding ran on one
// CPU at the end of a fresh load. Here a shard's strings are slices of one
// string, the shard's bytes.
//
// Every field is written, nil apart from empty; TestModelCodecEveryField
// fills each field of Model and fails when one does not come back, so a
// field added to Model, ModelConfig, Settled, Check or Drift must be added
// here too.

// cacheable reports whether the codec gives m back exactly: every check
// and drift value of TOML's own types (not a TOML date), and a UTC first
// partition. A model that is not is parsed every time.
func cacheable(m *Model) bool {
	if m.FirstPartition.Location() != time.UTC {
		return false
	}
	for _, specs := range []map[string]CheckSpec{m.Config.Checks, m.Config.Drift} {
		for _, c := range specs {
			if !tomlValue(c.Value, 0) {
				return false
			}
		}
	}
	return true
}

// tomlValue reports whether the codec can write v (encoder.value).
func tomlValue(v any, depth int) bool {
	if depth > 64 {
		return false // what the decoder would refuse
	}
	switch v := v.(type) {
	case nil, string, int64, float64, bool:
		return true
	case []any:
		for _, x := range v {
			if !tomlValue(x, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, x := range v {
			if !tomlValue(x, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// HeaderLines is where each setting of a model's header was written, by
// key ("materialized", "checks.unique").
type HeaderLines map[string]Pos

// entry writes a load cache entry: the file's path, stat and hash, and
// its model.
func (e *encoder) entry(rel string, me *modelEntry) {
	e.Str(rel)
	st := &me.Stat
	e.Int(st.Size)
	e.Int(st.MTime)
	e.Int(st.CTime)
	e.Int(st.Ino)
	e.Uint(uint64(st.Mode))
	e.Raw(string(me.Sum[:]))
	e.Bool(me.Racy)
	e.model(me.Model)
}

func (d *decoder) entry() (string, *modelEntry) {
	rel := d.Str()
	me := &modelEntry{Stat: fileStat{Size: d.Int(), MTime: d.Int(), CTime: d.Int(), Ino: d.Int(), Mode: uint32(d.Uint())}}
	d.digest(&me.Sum)
	me.Racy = d.Bool()
	me.Model = d.model()
	return rel, me
}

// model writes m, which cacheable accepted.
func (e *encoder) model(m *Model) {
	e.Str(m.Name)
	e.Str(m.Path)
	e.Str(m.Body)
	e.Int(int64(m.BodyLine))
	e.config(&m.Config)
	e.headerLines(m.HeaderLine)
	s := &m.Settled
	e.Str(s.Strategy)
	e.Str(s.Granularity)
	e.time(s.FirstPartition)
	e.checks(s.Checks)
	e.Bool(s.Lineage)
	e.drift(s.Drift)
	e.Raw(string(m.FileSum[:]))
	e.Raw(string(m.SettingsSum[:]))
}

// model reads what encoder.model wrote; nil after an error.
func (d *decoder) model() *Model {
	m := &Model{Name: d.Str(), Path: d.Str(), Body: d.Str(), BodyLine: int(d.Int())}
	d.config(&m.Config)
	m.HeaderLine = d.headerLines()
	s := &m.Settled
	s.Strategy, s.Granularity, s.FirstPartition = d.Str(), d.Str(), d.time()
	s.Checks = d.checks()
	s.Lineage = d.Bool()
	s.Drift = d.drift()
	d.digest(&m.FileSum)
	d.digest(&m.SettingsSum)
	if d.Err != nil {
		return nil
	}
	return m
}

func (e *encoder) config(c *ModelConfig) {
	e.Str(c.Materialized)
	e.Str(c.Strategy)
	e.Str(c.PartitionBy)
	e.Str(c.Granularity)
	e.Str(c.Start)
	e.Int(int64(c.Lookback))
	e.Strs(c.UniqueKey)
	e.Bool(c.Watermark != nil)
	if w := c.Watermark; w != nil {
		e.Str(w.Column)
		e.Str(w.Kind)
		e.Str(w.Lag)
		e.Str(w.Overlap)
	}
	e.Strs(c.MergeUpdateColumns)
	e.Strs(c.MergeExcludeColumns)
	e.Str(c.OnSchemaChange)
	e.Str(c.Schema)
	e.Str(c.Alias)
	e.Bool(c.AllowAppend)
	e.Strs(c.AllowNondeterministic)
	e.Bool(c.StrictParse)
	e.Bool(c.LineageColumns)
	e.Strs(c.Tags)
	e.Str(c.Description)
	e.specs(c.Checks)
	e.specs(c.Drift)
}

func (d *decoder) config(c *ModelConfig) {
	c.Materialized, c.Strategy, c.PartitionBy, c.Granularity, c.Start = d.Str(), d.Str(), d.Str(), d.Str(), d.Str()
	c.Lookback = int(d.Int())
	c.UniqueKey = d.Strs()
	if d.Bool() {
		c.Watermark = &Watermark{Column: d.Str(), Kind: d.Str(), Lag: d.Str(), Overlap: d.Str()}
	}
	c.MergeUpdateColumns, c.MergeExcludeColumns = d.Strs(), d.Strs()
	c.OnSchemaChange, c.Schema, c.Alias = d.Str(), d.Str(), d.Str()
	c.AllowAppend = d.Bool()
	c.AllowNondeterministic = d.Strs()
	c.StrictParse, c.LineageColumns = d.Bool(), d.Bool()
	c.Tags = d.Strs()
	c.Description = d.Str()
	c.Checks, c.Drift = d.specs(), d.specs()
}

func (e *encoder) checks(cs []Check) {
	if e.Count(cs == nil, len(cs)) {
		return
	}
	for i := range cs {
		c := &cs[i]
		e.Str(c.Kind)
		e.Str(c.Name)
		e.Str(c.Severity)
		e.pos(c.Pos)
		e.Strs(c.Columns)
		e.Strs(c.Values)
		e.Str(c.Relation)
		e.Str(c.RelationColumn)
		e.Int(c.MinRows)
		e.Str(c.Expr)
		e.Int(int64(c.Index))
	}
}

func (d *decoder) checks() []Check {
	n, isNil := d.Count()
	if isNil {
		return nil
	}
	cs := make([]Check, n)
	for i := range cs {
		c := &cs[i]
		c.Kind, c.Name, c.Severity, c.Pos = d.Str(), d.Str(), d.Str(), d.pos()
		c.Columns, c.Values = d.Strs(), d.Strs()
		c.Relation, c.RelationColumn = d.Str(), d.Str()
		c.MinRows = d.Int()
		c.Expr, c.Index = d.Str(), int(d.Int())
	}
	return cs
}

func (e *encoder) drift(dr *Drift) {
	e.Bool(dr != nil)
	if dr == nil {
		return
	}
	e.Bool(dr.RowCount != nil)
	if r := dr.RowCount; r != nil {
		e.Int(int64(r.Window))
		e.Float(r.MinRatio)
		e.Float(r.MaxRatio)
		e.Str(r.Severity)
	}
	e.Str(dr.ZeroRows)
	e.pos(dr.Pos)
}

func (d *decoder) drift() *Drift {
	if !d.Bool() {
		return nil
	}
	dr := &Drift{}
	if d.Bool() {
		dr.RowCount = &RowCountRule{Window: int(d.Int()), MinRatio: d.Float(), MaxRatio: d.Float(), Severity: d.Str()}
	}
	dr.ZeroRows, dr.Pos = d.Str(), d.pos()
	return dr
}

// headerLines writes the keys in order, each path once.
func (e *encoder) headerLines(h HeaderLines) {
	if e.Count(h == nil, len(h)) {
		return
	}
	var paths []string
	for _, k := range slices.Sorted(maps.Keys(h)) { // the same map, the same bytes
		p := h[k]
		i := slices.Index(paths, p.Path)
		if i < 0 {
			i = len(paths)
			paths = append(paths, p.Path)
			e.Uint(uint64(i))
			e.Str(p.Path)
		} else {
			e.Uint(uint64(i))
		}
		e.Str(k)
		e.Int(int64(p.Line))
	}
}

func (d *decoder) headerLines() HeaderLines {
	n, isNil := d.Count()
	if isNil {
		return nil
	}
	h := make(HeaderLines, n)
	var paths []string
	for range n {
		i := d.Uint()
		switch {
		case i == uint64(len(paths)):
			paths = append(paths, d.Str())
		case i > uint64(len(paths)):
			d.Fail("path %d of %d", i, len(paths))
		}
		if d.Err != nil {
			return nil
		}
		k := d.Str()
		h[k] = Pos{Path: paths[i], Line: int(d.Int())}
	}
	return h
}

func (e *encoder) specs(m map[string]CheckSpec) {
	if e.Count(m == nil, len(m)) {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		e.Str(k)
		e.value(m[k].Value)
	}
}

func (d *decoder) specs() map[string]CheckSpec {
	n, isNil := d.Count()
	if isNil {
		return nil
	}
	m := make(map[string]CheckSpec, n)
	for range n {
		k := d.Str()
		m[k] = CheckSpec{d.value(0)}
		if d.Err != nil {
			return nil
		}
	}
	return m
}

// Tags of a check's raw TOML value, one byte before it.
const (
	tagNil byte = iota
	tagString
	tagInt
	tagFloat
	tagFalse
	tagTrue
	tagList  // []any: its count (nil apart), then each value
	tagTable // map[string]any: its count (nil apart), then each key and value
)

// value writes a TOML value: strings, integers, floats, booleans, and
// lists and tables of them. Any other type (a TOML date) is an error;
// cacheable keeps a model holding one out of the cache.
func (e *encoder) value(v any) {
	switch v := v.(type) {
	case nil:
		e.Byte(tagNil)
	case string:
		e.Byte(tagString)
		e.Str(v)
	case int64:
		e.Byte(tagInt)
		e.Int(v)
	case float64:
		e.Byte(tagFloat)
		e.Float(v)
	case bool:
		if v {
			e.Byte(tagTrue)
		} else {
			e.Byte(tagFalse)
		}
	case []any:
		e.Byte(tagList)
		if !e.Count(v == nil, len(v)) {
			for _, x := range v {
				e.value(x)
			}
		}
	case map[string]any:
		e.Byte(tagTable)
		if !e.Count(v == nil, len(v)) {
			for _, k := range slices.Sorted(maps.Keys(v)) {
				e.Str(k)
				e.value(v[k])
			}
		}
	default:
		e.Fail(fmt.Errorf("a check value of type %T", v))
	}
}

// value reads a tagged value; depth bounds a corrupt file's nesting.
func (d *decoder) value(depth int) any {
	if d.Err != nil {
		return nil
	}
	if depth > 64 {
		d.Fail("nested too deep")
		return nil
	}
	tag := d.Byte()
	switch tag {
	case tagNil:
		return nil
	case tagString:
		return d.Str()
	case tagInt:
		return d.Int()
	case tagFloat:
		return d.Float()
	case tagFalse, tagTrue:
		return tag == tagTrue
	case tagList:
		n, isNil := d.Count()
		if isNil {
			return []any(nil)
		}
		l := make([]any, n)
		for i := range l {
			l[i] = d.value(depth + 1)
		}
		return l
	case tagTable:
		n, isNil := d.Count()
		if isNil {
			return map[string]any(nil)
		}
		m := make(map[string]any, n)
		for range n {
			k := d.Str()
			m[k] = d.value(depth + 1)
			if d.Err != nil {
				return nil
			}
		}
		return m
	}
	d.Fail("value tag %d", tag)
	return nil
}

// encoder and decoder are bincodec's, with the project's own values.
type encoder struct{ bincodec.Encoder }

type decoder struct{ bincodec.Decoder }

func (e *encoder) pos(p Pos) { e.Str(p.Path); e.Int(int64(p.Line)) }

func (d *decoder) pos() Pos { return Pos{Path: d.Str(), Line: int(d.Int())} }

// time writes a UTC time (cacheable refuses another location).
func (e *encoder) time(t time.Time) { e.Int(t.Unix()); e.Int(int64(t.Nanosecond())) }

func (d *decoder) time() time.Time {
	sec, nsec := d.Int(), d.Int()
	return time.Unix(sec, nsec).UTC()
}

func (d *decoder) digest(sum *Digest) { copy(sum[:], d.Raw(len(sum))) }
