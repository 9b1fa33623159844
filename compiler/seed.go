package compiler

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/idemc/idemc/compiler/project"
)

// SeedHash is a seed's content hash: its file's bytes and the kind each
// column is loaded as, so that declaring column_types (or a change in how
// a column is inferred) reloads the seed even when its file is unchanged.
// It is the seed's code hash in the audit table and the data version that
// the models reading it record.
func SeedHash(data []byte, s *project.Seed) string {
	h := sha256.New()
	h.Write(data)
	if s != nil && s.Table != nil {
		h.Write([]byte("\x00columns"))
		for _, c := range s.Table.Columns {
			h.Write([]byte("\x00" + c.Name + "\x00" + string(c.Kind)))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
