package compiler

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"reflect"
	"testing"

	"github.com/idemc/idemc/internal/testfill"
)

func filledEntries(count int) map[string]*cacheEntry {
	out := map[string]*cacheEntry{}
	for i := range count {
		var e cacheEntry
		n := i * 1000
		testfill.Fill(reflect.ValueOf(&e).Elem(), &n)
		out[fmt.Sprintf("models/m%d.sql", i)] = &e
	}
	return out
}

// TestCacheCodecEveryField: entries with every field filled, and zero
// and empty ones, come back equal. A field added to cacheEntry or to a
// type it holds (render.Cached, analyze.Result, …) and not to the codec
// fails here.
func TestCacheCodecEveryField(t *testing.T) {
	in := filledEntries(300) // several of the writer's buffers
	in["models/zero.sql"] = &cacheEntry{}
	in["models/empty.sql"] = &cacheEntry{Alt: &altReads{Refs: []string{}, Sources: [][2]string{}}}
	var buf bytes.Buffer
	if err := writeCacheEntries(&buf, in); err != nil {
		t.Fatal(err)
	}
	out := readCacheEntries(buf.Bytes())
	if !reflect.DeepEqual(out, in) {
		for k, e := range in {
			if !reflect.DeepEqual(out[k], e) {
				t.Fatalf("%s:\n got %#v\nwant %#v", k, out[k], e)
			}
		}
		t.Fatalf("%d entries back, want %d", len(out), len(in))
	}
}

// TestCacheCodecDamage: a file cut short, with a byte changed, or of
// another format reads as no cache (every model a miss), never as part
// of one or wrong entries.
func TestCacheCodecDamage(t *testing.T) {
	var buf bytes.Buffer
	if err := writeCacheEntries(&buf, filledEntries(3)); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	for i := range len(b) {
		if readCacheEntries(b[:i]) != nil {
			t.Fatalf("cut at %d of %d bytes: entries read", i, len(b))
		}
		c := bytes.Clone(b)
		c[i] ^= 0x40
		if readCacheEntries(c) != nil {
			t.Fatalf("byte %d of %d changed: entries read", i, len(b))
		}
	}
	e := &cacheEncoder{}
	e.Str("idemc-compile-cache/0")
	other := binary.BigEndian.AppendUint32(e.B, crc32.Checksum(e.B, castagnoli))
	if readCacheEntries(other) != nil {
		t.Error("another format: entries read")
	}
}
