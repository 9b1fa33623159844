package compiler

import (
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/idemc/idemc/compiler/analyze"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/render"
	"github.com/idemc/idemc/internal/bincodec"
	"github.com/idemc/idemc/plan"
)

// The compile cache's file: the format, then each entry (its model's path
// and the entry, field by field, in bincodec's form), then the CRC-32C of
// all before it in 4 bytes. Read whole into one string, every string of
// every entry a slice of it (gob allocated each, by reflection: most of a
// warm compile's reading of this cache). TestCacheCodecEveryField fails
// when a field of cacheEntry, or of a type it holds, is not carried.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// writeCacheEntries writes the file's text to w, through a buffer of
// ~64 KB.
func writeCacheEntries(w io.Writer, entries map[string]*cacheEntry) error {
	crc := crc32.New(castagnoli)
	out := io.MultiWriter(w, crc)
	e := &cacheEncoder{}
	e.Str(cacheFormat)
	for path, ce := range entries {
		e.Str(path)
		e.entry(ce)
		if len(e.B) >= 1<<16 {
			if _, err := out.Write(e.B); err != nil {
				return err
			}
			e.B = e.B[:0]
		}
	}
	if _, err := out.Write(e.B); err != nil {
		return err
	}
	_, err := w.Write(binary.BigEndian.AppendUint32(nil, crc.Sum32()))
	return err
}

// readCacheEntries reads what writeCacheEntries wrote; nil when b is not
// such a file, or was written for another format.
func readCacheEntries(b []byte) map[string]*cacheEntry {
	if len(b) < 4 || crc32.Checksum(b[:len(b)-4], castagnoli) != binary.BigEndian.Uint32(b[len(b)-4:]) {
		return nil
	}
	d := &cacheDecoder{bincodec.Decoder{S: string(b[:len(b)-4])}}
	if d.Str() != cacheFormat {
		return nil
	}
	entries := map[string]*cacheEntry{}
	for d.More() {
		path := d.Str()
		entries[path] = d.entry()
	}
	if d.End() != nil {
		return nil
	}
	return entries
}

type cacheEncoder struct{ bincodec.Encoder }

type cacheDecoder struct{ bincodec.Decoder }

func (e *cacheEncoder) entry(ce *cacheEntry) {
	e.Str(ce.Key)
	e.rendered(&ce.R)
	e.result(&ce.Res)
	e.Str(ce.Hash)
	e.Bool(ce.Incremental)
	e.Bool(ce.Alt != nil)
	if a := ce.Alt; a != nil {
		e.Strs(a.Refs)
		e.pairs(a.Sources)
		e.envReads(a.EnvVars)
	}
}

func (d *cacheDecoder) entry() *cacheEntry {
	ce := &cacheEntry{Key: d.Str()}
	d.rendered(&ce.R)
	d.result(&ce.Res)
	ce.Hash, ce.Incremental = d.Str(), d.Bool()
	if d.Bool() {
		ce.Alt = &altReads{Refs: d.Strs(), Sources: d.pairs(), EnvVars: d.envReads()}
	}
	return ce
}

func (e *cacheEncoder) rendered(r *render.Cached) {
	e.Str(r.Text)
	if !e.Count(r.Slots == nil, len(r.Slots)) {
		for _, s := range r.Slots {
			e.Int(int64(s.Kind))
			e.Str(s.A)
			e.Str(s.B)
			e.Strs(s.Exprs)
		}
	}
	e.Strs(r.Refs)
	e.pairs(r.Sources)
	e.Bool(r.UsesWindow)
	e.Bool(r.UsesAsOf)
	e.Bool(r.UsesIncremental)
	e.envReads(r.EnvVars)
	e.Strs(r.Warnings)
}

func (d *cacheDecoder) rendered(r *render.Cached) {
	r.Text = d.Str()
	if n, isNil := d.Count(); !isNil {
		r.Slots = make([]render.CachedSlot, n)
		for i := range r.Slots {
			r.Slots[i] = render.CachedSlot{Kind: render.SlotKind(d.Int()), A: d.Str(), B: d.Str(), Exprs: d.Strs()}
		}
	}
	r.Refs, r.Sources = d.Strs(), d.pairs()
	r.UsesWindow, r.UsesAsOf, r.UsesIncremental = d.Bool(), d.Bool(), d.Bool()
	r.EnvVars, r.Warnings = d.envReads(), d.Strs()
}

func (e *cacheEncoder) result(r *analyze.Result) {
	if !e.Count(r.Findings == nil, len(r.Findings)) {
		for _, f := range r.Findings {
			e.Str(f.Path)
			e.Int(int64(f.Line))
			e.Int(int64(f.Col))
			e.Str(f.Rule)
			e.Int(int64(f.Severity))
			e.Str(f.Message)
		}
	}
	e.Bool(r.Parsed)
	e.Strs(r.Columns)
	e.Bool(r.Star)
	if !e.Count(r.Lineage == nil, len(r.Lineage)) {
		for _, l := range r.Lineage {
			e.Str(l.Column)
			if !e.Count(l.Sources == nil, len(l.Sources)) {
				for _, s := range l.Sources {
					e.Str(s.Table)
					e.Str(s.Column)
					e.Strs(s.Candidates)
				}
			}
			e.Str(l.Unknown)
		}
	}
}

func (d *cacheDecoder) result(r *analyze.Result) {
	if n, isNil := d.Count(); !isNil {
		r.Findings = make([]diag.Finding, n)
		for i := range r.Findings {
			r.Findings[i] = diag.Finding{Path: d.Str(), Line: int(d.Int()), Col: int(d.Int()), Rule: d.Str(), Severity: diag.Severity(d.Int()), Message: d.Str()}
		}
	}
	r.Parsed, r.Columns, r.Star = d.Bool(), d.Strs(), d.Bool()
	if n, isNil := d.Count(); !isNil {
		r.Lineage = make([]plan.ColumnLineage, n)
		for i := range r.Lineage {
			l := &r.Lineage[i]
			l.Column = d.Str()
			if n, isNil := d.Count(); !isNil {
				l.Sources = make([]plan.ColumnSource, n)
				for j := range l.Sources {
					l.Sources[j] = plan.ColumnSource{Table: d.Str(), Column: d.Str(), Candidates: d.Strs()}
				}
			}
			l.Unknown = d.Str()
		}
	}
}

func (e *cacheEncoder) pairs(l [][2]string) {
	if !e.Count(l == nil, len(l)) {
		for _, p := range l {
			e.Str(p[0])
			e.Str(p[1])
		}
	}
}

func (d *cacheDecoder) pairs() [][2]string {
	n, isNil := d.Count()
	if isNil {
		return nil
	}
	l := make([][2]string, n)
	for i := range l {
		l[i] = [2]string{d.Str(), d.Str()}
	}
	return l
}

func (e *cacheEncoder) envReads(l []render.EnvRead) {
	if !e.Count(l == nil, len(l)) {
		for _, r := range l {
			e.Str(r.Name)
			e.Str(r.Value)
			e.Bool(r.Set)
		}
	}
}

func (d *cacheDecoder) envReads() []render.EnvRead {
	n, isNil := d.Count()
	if isNil {
		return nil
	}
	l := make([]render.EnvRead, n)
	for i := range l {
		l[i] = render.EnvRead{Name: d.Str(), Value: d.Str(), Set: d.Bool()}
	}
	return l
}
