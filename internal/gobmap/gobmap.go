// Package gobmap writes a map to a gob stream as messages of Chunk
// entries each, and reads it back. gob builds a message in a buffer it
// grows a quarter at a time and keeps for the encoder's next message: a
// map of 10,000 entries sent as one message allocated ~5 times its size
// (78 MB to write the 12 MB load cache), in messages of Chunk entries
// the buffer grows once to a message's size.
package gobmap

import (
	"encoding/gob"
	"errors"
	"io"
)

// Chunk is how many entries a message holds.
const Chunk = 256

type entry[V any] struct {
	Key   string
	Value V
}

// Encode writes m's entries with enc, in messages of Chunk entries.
func Encode[V any](enc *gob.Encoder, m map[string]V) error {
	chunk := make([]entry[V], 0, min(len(m), Chunk))
	for k, v := range m {
		if chunk = append(chunk, entry[V]{k, v}); len(chunk) == Chunk {
			if err := enc.Encode(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
	}
	if len(chunk) == 0 {
		return nil
	}
	return enc.Encode(chunk)
}

// Decode reads what Encode wrote into m, up to the end of the stream.
func Decode[V any](dec *gob.Decoder, m map[string]V) error {
	for {
		var chunk []entry[V]
		if err := dec.Decode(&chunk); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		for _, e := range chunk {
			m[e.Key] = e.Value
		}
	}
}
