package compiler

import (
	"fmt"
	"strings"

	"github.com/idemc/idemc/plan"
)

// Why a unit runs, for idemc plan (Options.Explain). The planner decides
// from the input fingerprint alone (DESIGN §9); these words only name the
// likeliest part of it that changed.

func forcedReason(o Options, explicit bool) string {
	switch {
	case o.Units != nil:
		return "not done in the run being retried"
	case explicit:
		return "forced: --partition or --start/--end names it"
	}
	return "forced: --full-refresh"
}

// staleReason names why a unit whose latest attempt is not an up-to-date
// success runs: never run, failed, destination missing or emptied, an
// upstream written since, the logical time, or else its code.
func (pl *planner) staleReason(c *compiled, key string, w *plan.Window, last Attempt, ok, exists, empty bool) string {
	switch {
	case !ok:
		return "never run"
	case last.Status != "succeeded":
		return "latest attempt " + last.Status + " (run " + last.RunID + ")"
	case !exists:
		return "destination missing"
	case empty && last.RowCount > 0:
		return "destination emptied outside idemc"
	}
	if ups := pl.changedUpstream(c, key, last.RunID); len(ups) > 0 {
		return "upstream data changed (" + strings.Join(ups, ", ") + ")"
	}
	if w == nil && (c.tpl.UsesAsOf || c.tpl.UsesWindow || c.cfg.Watermark != nil) {
		return "logical time moved (it reads as_of or a watermark)"
	}
	if last.CodeHash != "" && last.CodeHash == c.hash {
		// The code is the same, so what it reads is not: a partition or
		// relation whose version moved, or where a name resolves to.
		return "inputs changed (an upstream's data or a relation it resolves)"
	}
	return "code or settings changed"
}

// changedUpstream lists the inputs of c written since runID, or planned to
// be written in this run.
func (pl *planner) changedUpstream(c *compiled, key, runID string) []string {
	var out []string
	for _, up := range pl.inputs(c.m.Name) {
		if len(pl.unitsOf[up]) > 0 {
			out = append(out, up)
			continue
		}
		for _, k := range append(pl.opts.State.Keys(up), "") {
			if a, ok := pl.opts.State.Latest(up, k); ok && a.Status == "succeeded" && a.RunID > runID {
				out = append(out, up)
				break
			}
		}
	}
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("+%d more", len(out)-3))
	}
	return out
}
