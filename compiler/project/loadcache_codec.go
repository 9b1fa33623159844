package project

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
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
	e.str(rel)
	st := &me.Stat
	e.int(st.Size)
	e.int(st.MTime)
	e.int(st.CTime)
	e.int(st.Ino)
	e.uint(uint64(st.Mode))
	e.b = append(e.b, me.Sum[:]...)
	e.bool(me.Racy)
	e.model(me.Model)
}

func (d *decoder) entry() (string, *modelEntry) {
	rel := d.str()
	me := &modelEntry{Stat: fileStat{Size: d.int(), MTime: d.int(), CTime: d.int(), Ino: d.int(), Mode: uint32(d.uint())}}
	d.digest(&me.Sum)
	me.Racy = d.bool()
	me.Model = d.model()
	return rel, me
}

// model writes m, which cacheable accepted.
func (e *encoder) model(m *Model) {
	e.str(m.Name)
	e.str(m.Path)
	e.str(m.Body)
	e.int(int64(m.BodyLine))
	e.config(&m.Config)
	e.headerLines(m.HeaderLine)
	s := &m.Settled
	e.str(s.Strategy)
	e.str(s.Granularity)
	e.time(s.FirstPartition)
	e.checks(s.Checks)
	e.bool(s.Lineage)
	e.drift(s.Drift)
	e.b = append(append(e.b, m.FileSum[:]...), m.SettingsSum[:]...)
}

// model reads what encoder.model wrote; nil after an error.
func (d *decoder) model() *Model {
	m := &Model{Name: d.str(), Path: d.str(), Body: d.str(), BodyLine: int(d.int())}
	d.config(&m.Config)
	m.HeaderLine = d.headerLines()
	s := &m.Settled
	s.Strategy, s.Granularity, s.FirstPartition = d.str(), d.str(), d.time()
	s.Checks = d.checks()
	s.Lineage = d.bool()
	s.Drift = d.drift()
	d.digest(&m.FileSum)
	d.digest(&m.SettingsSum)
	if d.err != nil {
		return nil
	}
	return m
}

func (e *encoder) config(c *ModelConfig) {
	e.str(c.Materialized)
	e.str(c.Strategy)
	e.str(c.PartitionBy)
	e.str(c.Granularity)
	e.str(c.Start)
	e.int(int64(c.Lookback))
	e.strs(c.UniqueKey)
	e.bool(c.Watermark != nil)
	if w := c.Watermark; w != nil {
		e.str(w.Column)
		e.str(w.Kind)
		e.str(w.Lag)
		e.str(w.Overlap)
	}
	e.strs(c.MergeUpdateColumns)
	e.strs(c.MergeExcludeColumns)
	e.str(c.OnSchemaChange)
	e.str(c.Schema)
	e.str(c.Alias)
	e.bool(c.AllowAppend)
	e.strs(c.AllowNondeterministic)
	e.bool(c.StrictParse)
	e.bool(c.LineageColumns)
	e.strs(c.Tags)
	e.str(c.Description)
	e.specs(c.Checks)
	e.specs(c.Drift)
}

func (d *decoder) config(c *ModelConfig) {
	c.Materialized, c.Strategy, c.PartitionBy, c.Granularity, c.Start = d.str(), d.str(), d.str(), d.str(), d.str()
	c.Lookback = int(d.int())
	c.UniqueKey = d.strs()
	if d.bool() {
		c.Watermark = &Watermark{Column: d.str(), Kind: d.str(), Lag: d.str(), Overlap: d.str()}
	}
	c.MergeUpdateColumns, c.MergeExcludeColumns = d.strs(), d.strs()
	c.OnSchemaChange, c.Schema, c.Alias = d.str(), d.str(), d.str()
	c.AllowAppend = d.bool()
	c.AllowNondeterministic = d.strs()
	c.StrictParse, c.LineageColumns = d.bool(), d.bool()
	c.Tags = d.strs()
	c.Description = d.str()
	c.Checks, c.Drift = d.specs(), d.specs()
}

func (e *encoder) checks(cs []Check) {
	if e.count(cs == nil, len(cs)) {
		return
	}
	for i := range cs {
		c := &cs[i]
		e.str(c.Kind)
		e.str(c.Name)
		e.str(c.Severity)
		e.pos(c.Pos)
		e.strs(c.Columns)
		e.strs(c.Values)
		e.str(c.Relation)
		e.str(c.RelationColumn)
		e.int(c.MinRows)
		e.str(c.Expr)
		e.int(int64(c.Index))
	}
}

func (d *decoder) checks() []Check {
	n, isNil := d.count()
	if isNil {
		return nil
	}
	cs := make([]Check, n)
	for i := range cs {
		c := &cs[i]
		c.Kind, c.Name, c.Severity, c.Pos = d.str(), d.str(), d.str(), d.pos()
		c.Columns, c.Values = d.strs(), d.strs()
		c.Relation, c.RelationColumn = d.str(), d.str()
		c.MinRows = d.int()
		c.Expr, c.Index = d.str(), int(d.int())
	}
	return cs
}

func (e *encoder) drift(dr *Drift) {
	e.bool(dr != nil)
	if dr == nil {
		return
	}
	e.bool(dr.RowCount != nil)
	if r := dr.RowCount; r != nil {
		e.int(int64(r.Window))
		e.float(r.MinRatio)
		e.float(r.MaxRatio)
		e.str(r.Severity)
	}
	e.str(dr.ZeroRows)
	e.pos(dr.Pos)
}

func (d *decoder) drift() *Drift {
	if !d.bool() {
		return nil
	}
	dr := &Drift{}
	if d.bool() {
		dr.RowCount = &RowCountRule{Window: int(d.int()), MinRatio: d.float(), MaxRatio: d.float(), Severity: d.str()}
	}
	dr.ZeroRows, dr.Pos = d.str(), d.pos()
	return dr
}

// headerLines writes the keys in order, each path once.
func (e *encoder) headerLines(h HeaderLines) {
	if e.count(h == nil, len(h)) {
		return
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same map, the same bytes
	var paths []string
	for _, k := range keys {
		p := h[k]
		i := slices.Index(paths, p.Path)
		if i < 0 {
			i = len(paths)
			paths = append(paths, p.Path)
			e.uint(uint64(i))
			e.str(p.Path)
		} else {
			e.uint(uint64(i))
		}
		e.str(k)
		e.int(int64(p.Line))
	}
}

func (d *decoder) headerLines() HeaderLines {
	n, isNil := d.count()
	if isNil {
		return nil
	}
	h := make(HeaderLines, n)
	var paths []string
	for range n {
		i := d.uint()
		switch {
		case i == uint64(len(paths)):
			paths = append(paths, d.str())
		case i > uint64(len(paths)):
			d.fail("path %d of %d", i, len(paths))
		}
		if d.err != nil {
			return nil
		}
		k := d.str()
		h[k] = Pos{Path: paths[i], Line: int(d.int())}
	}
	return h
}

func (e *encoder) specs(m map[string]CheckSpec) {
	if e.count(m == nil, len(m)) {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		e.str(k)
		e.value(m[k].Value)
	}
}

func (d *decoder) specs() map[string]CheckSpec {
	n, isNil := d.count()
	if isNil {
		return nil
	}
	m := make(map[string]CheckSpec, n)
	for range n {
		k := d.str()
		m[k] = CheckSpec{d.value(0)}
		if d.err != nil {
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
		e.b = append(e.b, tagNil)
	case string:
		e.b = append(e.b, tagString)
		e.str(v)
	case int64:
		e.b = append(e.b, tagInt)
		e.int(v)
	case float64:
		e.b = append(e.b, tagFloat)
		e.float(v)
	case bool:
		e.b = append(e.b, tagFalse+boolByte(v))
	case []any:
		e.b = append(e.b, tagList)
		if !e.count(v == nil, len(v)) {
			for _, x := range v {
				e.value(x)
			}
		}
	case map[string]any:
		e.b = append(e.b, tagTable)
		if !e.count(v == nil, len(v)) {
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				e.str(k)
				e.value(v[k])
			}
		}
	default:
		if e.err == nil {
			e.err = fmt.Errorf("a check value of type %T", v)
		}
	}
}

// value reads a tagged value; depth bounds a corrupt file's nesting.
func (d *decoder) value(depth int) any {
	if d.err != nil {
		return nil
	}
	if d.at >= len(d.s) || depth > 64 {
		d.fail("cut short or nested too deep")
		return nil
	}
	tag := d.s[d.at]
	d.at++
	switch tag {
	case tagNil:
		return nil
	case tagString:
		return d.str()
	case tagInt:
		return d.int()
	case tagFloat:
		return d.float()
	case tagFalse, tagTrue:
		return tag == tagTrue
	case tagList:
		n, isNil := d.count()
		if isNil {
			return []any(nil)
		}
		l := make([]any, n)
		for i := range l {
			l[i] = d.value(depth + 1)
		}
		return l
	case tagTable:
		n, isNil := d.count()
		if isNil {
			return map[string]any(nil)
		}
		m := make(map[string]any, n)
		for range n {
			k := d.str()
			m[k] = d.value(depth + 1)
			if d.err != nil {
				return nil
			}
		}
		return m
	}
	d.fail("value tag %d", tag)
	return nil
}

// encoder appends to b; the first error sticks.
type encoder struct {
	b   []byte
	err error
}

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) bool(v bool)   { e.b = append(e.b, boolByte(v)) }
func (e *encoder) str(s string)  { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) float(f float64) {
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(f))
}

// count writes a slice's or map's length, 0 for nil and n+1 for n
// elements, and reports whether there is nothing more to write.
func (e *encoder) count(isNil bool, n int) (done bool) {
	if isNil {
		e.uint(0)
		return true
	}
	e.uint(uint64(n) + 1)
	return n == 0
}

func (e *encoder) strs(l []string) {
	if !e.count(l == nil, len(l)) {
		for _, s := range l {
			e.str(s)
		}
	}
}

func (e *encoder) pos(p Pos) { e.str(p.Path); e.int(int64(p.Line)) }

// time writes a UTC time (cacheable refuses another location).
func (e *encoder) time(t time.Time) { e.int(t.Unix()); e.int(int64(t.Nanosecond())) }

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// decoder reads s from at; the first error sticks, and every read after
// it gives a zero value.
type decoder struct {
	s   string
	at  int
	err error
}

var errShort = errors.New("cut short")

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	var v uint64
	for shift := 0; d.at < len(d.s) && shift < 64; shift += 7 {
		c := d.s[d.at]
		d.at++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.err = errShort
	return 0
}

func (d *decoder) int() int64 {
	u := d.uint() // zigzag, as binary.AppendVarint writes it
	return int64(u>>1) ^ -int64(u&1)
}

func (d *decoder) bool() bool {
	if d.err != nil || d.at >= len(d.s) {
		d.fail("cut short")
		return false
	}
	c := d.s[d.at]
	d.at++
	if c > 1 {
		d.fail("a boolean of %d", c)
	}
	return c == 1
}

func (d *decoder) float() float64 {
	if d.err != nil || len(d.s)-d.at < 8 {
		d.fail("cut short")
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64([]byte(d.s[d.at : d.at+8])))
	d.at += 8
	return f
}

// str is the next string, a slice of s: no copy.
func (d *decoder) str() string {
	n := d.uint()
	if d.err == nil && n > uint64(len(d.s)-d.at) {
		d.err = errShort
	}
	if d.err != nil {
		return ""
	}
	s := d.s[d.at : d.at+int(n)]
	d.at += int(n)
	return s
}

// count reads what encoder.count wrote; n is bounded by the bytes left
// (each element takes one at least), so a corrupt count allocates little.
func (d *decoder) count() (n int, isNil bool) {
	c := d.uint()
	if d.err != nil || c == 0 {
		return 0, true
	}
	if c-1 > uint64(len(d.s)-d.at) {
		d.fail("%d elements in %d bytes", c-1, len(d.s)-d.at)
		return 0, true
	}
	return int(c - 1), false
}

func (d *decoder) strs() []string {
	n, isNil := d.count()
	if isNil {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.str()
	}
	return l
}

func (d *decoder) pos() Pos { return Pos{Path: d.str(), Line: int(d.int())} }

func (d *decoder) time() time.Time {
	sec, nsec := d.int(), d.int()
	return time.Unix(sec, nsec).UTC()
}

func (d *decoder) digest(sum *Digest) {
	if d.err != nil || len(d.s)-d.at < len(sum) {
		d.fail("cut short")
		return
	}
	copy(sum[:], d.s[d.at:])
	d.at += len(sum)
}
