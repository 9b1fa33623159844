package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"

	"github.com/idemc/idemc/plan"
)

// Data versions (DESIGN §9). Every relation a unit reads has a version that
// changes whenever its rows may have changed:
//
//   - a model unit's version is "r:<run id>" of its latest successful write
//     (verify's reruns keep the version they found); a unit planned in this
//     run has this run's version already, so readers planned after it
//     record what they will read;
//   - a seed's version is "s:<content hash>": the same file loads the same rows;
//   - a view's version is derived from its code and what it reads (it holds
//     no data of its own), partition by partition where it reads a model
//     partitioned like its reader;
//   - a partitioned model read as a whole has the digest of every
//     partition's version.
//
// A unit's input fingerprint is the digest of its code hash, its
// destination (target, schema, name) and the versions it reads, plus the
// logical time for an unpartitioned model that reads as_of or a watermark.
type versions struct {
	unit  map[string]string // unit id → version
	model map[string]string // model or seed → version of the whole relation
	view  map[string]string // "view|key|gran" → memoized view version
	in    map[string][]string
	// eph lists "name=code hash" (and the relations they resolve) of the
	// ephemeral models a model inlines: their code is part of its code,
	// though its own hash names them only.
	eph map[string][]string
}

func newVersions() versions {
	return versions{unit: map[string]string{}, model: map[string]string{}, view: map[string]string{}, in: map[string][]string{}, eph: map[string][]string{}}
}

// runVersion is the version a unit written by this run leaves.
func (pl *planner) runVersion() string {
	if pl.opts.RunID == "" {
		return "r:<run_id>"
	}
	return "r:" + pl.opts.RunID
}

// writeVersion is the version a unit planned now leaves: this run's, or
// for verify's reruns with unchanged inputs, the one already there.
func (pl *planner) writeVersion(n, key, fp string) string {
	if pl.opts.KeepVersions {
		if last, ok := pl.opts.State.Latest(n, key); ok && last.Status == "succeeded" && last.Inputs == fp && last.DataVersion != "" {
			return last.DataVersion
		}
	}
	return pl.runVersion()
}

// stateVersion is the version of a unit that does not run now: its latest
// successful write's; an unknown one when its latest attempt failed (the
// data is older than what the audit row names); none when nothing is there.
func (pl *planner) stateVersion(n, key string, exists bool) string {
	if !exists {
		return "missing"
	}
	last, ok := pl.opts.State.Latest(n, key)
	switch {
	case !ok:
		return "none"
	case last.Status == "succeeded" && last.DataVersion != "":
		return last.DataVersion
	}
	return "x:" + last.RunID
}

// wholeVersion is the version of a model read as a whole: its only unit's,
// or a digest of every partition's (those this plan knows and those the
// audit table has). Partitions never written do not count, so that the
// version does not depend on how far the logical time reaches.
func (pl *planner) wholeVersion(c *compiled, cands []*plan.Window, exists bool) string {
	n := c.m.Name
	if len(cands) == 1 && cands[0] == nil {
		return pl.vers.unit[n]
	}
	if !exists && !pl.plannedAny(n, cands) {
		return "missing"
	}
	// Partitions this run does not write keep their state in a relation
	// this run creates, as the next plan will see them.
	exists = exists || pl.plannedAny(n, cands)
	keys := map[string]bool{}
	for _, w := range cands {
		keys[keyOf(w)] = true
	}
	for _, k := range pl.opts.State.Keys(n) {
		keys[k] = true
	}
	list := make([]string, 0, len(keys))
	for k := range keys {
		v, ok := pl.vers.unit[plan.UnitID(n, k)]
		if !ok {
			v = pl.stateVersion(n, k, exists)
		}
		if v == "none" {
			continue
		}
		list = append(list, k+"="+v)
	}
	sort.Strings(list)
	return "p:" + digest(list)
}

// plannedAny reports whether one of cands is written by this run.
func (pl *planner) plannedAny(n string, cands []*plan.Window) bool {
	rv := pl.runVersion()
	for _, w := range cands {
		if pl.vers.unit[plan.UnitID(n, keyOf(w))] == rv {
			return true
		}
	}
	return false
}

// inputs are the relations a model reads (refs and seeds loading the
// sources it reads), ephemeral models replaced by what they read. The
// relations its checks read are not inputs: they order units, no more.
func (pl *planner) inputs(n string) []string {
	if in, ok := pl.vers.in[n]; ok {
		return in
	}
	var out, eph []string
	seen := map[string]bool{}
	var visit func(string)
	visit = func(m string) {
		c := pl.models[m]
		if c == nil {
			return
		}
		for _, up := range c.dataUp {
			if seen[up] {
				continue
			}
			seen[up] = true
			if uc := pl.models[up]; uc != nil && uc.cfg.Materialized == plan.Ephemeral {
				eph = append(eph, up+"="+uc.hash)
				eph = append(eph, uc.resolved...)
				visit(up)
				continue
			}
			out = append(out, up)
		}
	}
	visit(n)
	sort.Strings(out)
	sort.Strings(eph)
	pl.vers.in[n], pl.vers.eph[n] = out, eph
	return out
}

// readVersion is the version of relation up as a unit of c for partition
// key reads it.
func (pl *planner) readVersion(up, key string, c *compiled) string {
	uc := pl.models[up]
	switch {
	case uc == nil: // a seed
		return pl.vers.model[up]
	case uc.cfg.Materialized == plan.View:
		memo := up + "|" + key + "|" + c.gran
		if v, ok := pl.vers.view[memo]; ok {
			return v
		}
		parts := append([]string{uc.hash}, uc.resolved...)
		ins := pl.inputs(up)
		parts = append(parts, pl.vers.eph[up]...)
		for _, in := range ins {
			parts = append(parts, in+"="+pl.readVersion(in, key, c))
		}
		v := "v:" + digest(parts)
		pl.vers.view[memo] = v
		return v
	case key != "" && uc.cfg.PartitionBy != "" && uc.cfg.Materialized == plan.Incremental && uc.gran == c.gran:
		if v, ok := pl.vers.unit[plan.UnitID(up, key)]; ok {
			return v
		}
		// A partition up has no unit for (before its start, say): a
		// relation this run creates is there when it is read, as it is
		// at the next plan, so the version must not say "missing" now
		// and "none" then (a needless rerun of the reader).
		return pl.stateVersion(up, key, pl.opts.State.Exists(uc.rel) || len(pl.unitsOf[up]) > 0)
	}
	return pl.vers.model[up]
}

// fingerprint is the input fingerprint of the unit of c for partition key.
// A view's also covers what it reads: the view holds no data, but the
// engine binds it to what it read when it was created (its columns'
// types, on PostgreSQL the table itself), and its checks must see the
// data it now shows (DESIGN §8). Recreating a view is cheap, and its
// readers do not rerun for it: its data version is its inputs'.
func (pl *planner) fingerprint(c *compiled, key string) string {
	ins := pl.inputs(c.m.Name)
	reads := append(append([]string(nil), c.resolved...), pl.vers.eph[c.m.Name]...)
	for _, up := range ins {
		reads = append(reads, up+"="+pl.readVersion(up, key, c))
	}
	if key == "" && (c.tpl.UsesAsOf || c.tpl.UsesWindow || c.cfg.Watermark != nil) {
		reads = append(reads, "as_of="+pl.opts.AsOf.UTC().Format(time.RFC3339Nano))
	}
	return fingerprintOf(c.hash, pl.target, c.rel, reads)
}

// fingerprintOf digests a unit's code hash, destination and reads.
func fingerprintOf(code, target string, rel plan.Relation, reads []string) string {
	parts := append([]string{code, target, rel.Database, rel.Schema, rel.Name}, reads...)
	return digest(parts)
}

func digest(parts []string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:12])
}
