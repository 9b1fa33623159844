package project

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"reflect"
	"testing"
)

// TestLoadCacheShards: the entries come back as written, from every
// shard, digests included; a file of another format or environment, a truncated or a
// garbled one, gives nothing (a miss, not an error or a partial cache).
func TestLoadCacheShards(t *testing.T) {
	// Many entries: shards of many entries each.
	many := shardEntries(3 * 256 * loadCacheShards)
	var buf bytes.Buffer
	if err := encodeShards(&buf, "f", "env", many); err != nil {
		t.Fatal(err)
	}
	if got := decodeShards(buf.Bytes(), "f", "env"); !reflect.DeepEqual(got, many) {
		t.Fatalf("decoded %d entries, not the %d written", len(got), len(many))
	}
	entries := shardEntries(40)
	buf.Reset()
	if err := encodeShards(&buf, "f", "env", entries); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	used := map[int]bool{}
	for rel := range entries {
		used[shardOf(rel)] = true
	}
	if len(used) != loadCacheShards {
		t.Fatalf("the entries fill %d of %d shards", len(used), loadCacheShards)
	}
	if got := decodeShards(b, "f", "env"); !reflect.DeepEqual(got, entries) {
		t.Fatalf("decoded %d entries, not the %d written", len(got), len(entries))
	}
	garbled := append([]byte(nil), b...)
	garbled[len(garbled)/3] ^= 0xff
	for name, c := range map[string]struct {
		b           []byte
		format, env string
	}{
		"another format":      {b, "g", "env"},
		"another environment": {b, "f", "other"},
		"truncated":           {b[:len(b)-5], "f", "env"},
		"cut at the front":    {b[100:], "f", "env"},
		"garbled":             {garbled, "f", "env"},
		"empty":               {nil, "f", "env"},
	} {
		if got := decodeShards(c.b, c.format, c.env); got != nil {
			t.Errorf("%s: %d entries, want none", name, len(got))
		}
	}
}

// shardEntries are n entries with every field set.
func shardEntries(n int) map[string]*modelEntry {
	entries := map[string]*modelEntry{}
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("models/m%02d.sql", i)
		sum := Digest(sha256.Sum256([]byte(rel)))
		entries[rel] = &modelEntry{Stat: fileStat{Size: int64(i)}, Racy: i%3 == 0, Sum: sum,
			Model: &Model{Name: fmt.Sprintf("m%02d", i), Path: rel, Body: "SELECT 1", HeaderLine: map[string]Pos{"materialized": {rel, 2}},
				FileSum: sum, SettingsSum: Digest{byte(i), 0xff}}}
	}
	return entries
}

// TestDigestBytes: a digest is written as its bytes and read back only
// from exactly as many.
func TestDigestBytes(t *testing.T) {
	d := Digest(sha256.Sum256([]byte("x")))
	b, err := d.MarshalBinary()
	if err != nil || !bytes.Equal(b, d[:]) {
		t.Fatalf("MarshalBinary: %x, %v", b, err)
	}
	var got Digest
	if err := got.UnmarshalBinary(b); err != nil || got != d {
		t.Fatalf("UnmarshalBinary: %x, %v", got, err)
	}
	for _, n := range []int{0, 31, 33} {
		if err := got.UnmarshalBinary(make([]byte, n)); err == nil {
			t.Errorf("%d bytes read as a digest", n)
		}
	}
}
