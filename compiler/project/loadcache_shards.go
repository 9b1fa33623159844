package project

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"hash/crc32"
	"hash/fnv"
	"io"
	"sync"

	"github.com/idemc/idemc/internal/bincodec"
)

// The load cache's file holds its entries in loadCacheShards shards, which
// a load decodes at once: decoding 10,000 entries in one stream was ~0.18 s
// of CPU, the largest part of a warm compile's load. A shard is its entries
// one after another in the model codec's form (loadcache_codec.go); a gob
// trailer after the shards gives the format, the environment and each
// shard's size and sum, then its own size in 8 bytes. It is read first, so
// that a cache of another build or project file is not decoded at all.
const loadCacheShards = 4

type shardTrailer struct {
	Format, Env string
	Sizes       []int
	Sums        []uint32 // CRC-32C of each shard
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// shardOf spreads the entries by path.
func shardOf(rel string) int {
	h := fnv.New32a()
	h.Write([]byte(rel))
	return int(h.Sum32() % loadCacheShards)
}

// encodeShards writes entries as the shards and the trailer. A shard is
// encoded whole before it is written: a buffer of one shard, not of the
// whole cache (~12 MiB at 10,000 models).
func encodeShards(w io.Writer, format, env string, entries map[string]*modelEntry) error {
	parts := make([]map[string]*modelEntry, loadCacheShards)
	for i := range parts {
		parts[i] = map[string]*modelEntry{}
	}
	for rel, e := range entries {
		parts[shardOf(rel)][rel] = e
	}
	tr := shardTrailer{Format: format, Env: env}
	e := &encoder{}
	for _, p := range parts {
		e.B = e.B[:0]
		for rel, me := range p {
			e.entry(rel, me)
		}
		if e.Err != nil {
			return e.Err
		}
		tr.Sizes = append(tr.Sizes, len(e.B))
		tr.Sums = append(tr.Sums, crc32.Checksum(e.B, castagnoli))
		if _, err := w.Write(e.B); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(tr); err != nil {
		return err
	}
	buf.Write(binary.BigEndian.AppendUint64(nil, uint64(buf.Len())))
	_, err := w.Write(buf.Bytes())
	return err
}

// decodeShards reads what encodeShards wrote, nil when b is not such a
// file or was written for another format or environment.
func decodeShards(b []byte, format, env string) map[string]*modelEntry {
	if len(b) < 8 {
		return nil
	}
	n := binary.BigEndian.Uint64(b[len(b)-8:])
	if n > uint64(len(b)-8) {
		return nil
	}
	var tr shardTrailer
	if gob.NewDecoder(bytes.NewReader(b[len(b)-8-int(n):len(b)-8])).Decode(&tr) != nil ||
		tr.Format != format || tr.Env != env || len(tr.Sizes) != loadCacheShards || len(tr.Sums) != loadCacheShards {
		return nil
	}
	parts := make([]map[string]*modelEntry, len(tr.Sizes))
	ok := make([]bool, len(tr.Sizes))
	var wg sync.WaitGroup
	off := 0
	for i, size := range tr.Sizes {
		if size < 0 || off+size > len(b)-8-int(n) {
			return nil
		}
		wg.Add(1)
		go func(i int, part []byte) {
			defer wg.Done()
			if crc32.Checksum(part, castagnoli) != tr.Sums[i] {
				return
			}
			// One copy of the shard: every string of its models is a
			// slice of it.
			d := &decoder{bincodec.Decoder{S: string(part)}}
			parts[i] = map[string]*modelEntry{}
			for d.More() {
				rel, e := d.entry()
				parts[i][rel] = e
			}
			ok[i] = d.Err == nil
		}(i, b[off:off+size])
		off += size
	}
	wg.Wait()
	out := map[string]*modelEntry{}
	for i, p := range parts {
		if !ok[i] {
			return nil
		}
		for rel, e := range p {
			out[rel] = e
		}
	}
	return out
}
