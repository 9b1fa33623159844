package sqlgen

import (
	"crypto/md5"
	"encoding/hex"
	"hash/fnv"
	"unicode/utf8"

	"github.com/idemc/idemc/adapters"
)

// portableName is the strictest relation name limit of the engines
// (PostgreSQL's 63 bytes): a name derived where no dialect is at hand
// (StageName) fits it, so it fits every engine.
const portableName = 63

// Derive returns base+suffix when it fits max (as l counts; 0: no limit).
// Otherwise base is cut, never inside a UTF-8 character, and followed by
// "_" and 8 hex digits of base's md5 before the suffix: the same base
// always gives the same name, two bases sharing a long prefix give two
// names, and the suffix (the name's purpose) stays readable.
func Derive(l adapters.IdentLimit, max int, base, suffix string) string {
	if max <= 0 || l.Len(base+suffix) <= max {
		return base + suffix
	}
	sum := md5.Sum([]byte(base))
	tail := "_" + hex.EncodeToString(sum[:4]) + suffix
	room := max - l.Len(tail)
	if room < 0 && suffix != "" {
		// The suffix alone is too long (a long column's index name):
		// shorten the whole name instead.
		return Derive(l, max, base+suffix, "")
	}
	cut, chars := 0, 0
	for cut < len(base) {
		_, size := utf8.DecodeRuneInString(base[cut:])
		used := chars + 1
		if l.Bytes {
			used = cut + size
		}
		if used > room {
			break
		}
		cut += size
		chars++
	}
	return base[:cut] + tail
}

// portableDerive is Derive within portableName bytes.
func portableDerive(base, suffix string) string {
	return Derive(adapters.IdentLimit{Name: portableName, Bytes: true}, portableName, base, suffix)
}

// DerivedName is base+suffix shortened to the dialect's relation name limit.
func (g Gen) DerivedName(base, suffix string) string {
	return Derive(g.S.IdentLimit, g.S.IdentLimit.Name, base, suffix)
}

// IdentLimit is the engine's identifier limit.
func (g Gen) IdentLimit() adapters.IdentLimit { return g.S.IdentLimit }

// Hash32 is the 32-bit FNV-1a hash of s: the one hash of the names idemc
// derives (MySQL lock names, BigQuery and Spark staging tables and job
// ids, Spark's txnAppId), so that they agree wherever they are computed.
func Hash32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
