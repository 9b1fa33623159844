package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// httpEngines are the engines that land HTTP sources: those whose merge
// recipe and bulk seed load run in one transaction per page (docs/http.md).
var httpEngines = map[string]bool{"duckdb": true, "postgres": true, "mysql": true}

// addHTTPNodes adds a node for every [http.NAME] source: a raw relation
// like a seed's (Seed is set so that sources and selection treat it as
// one), in its schema, the seed schema or the target's.
func (cc *compilation) addHTTPNodes() error {
	if len(cc.p.HTTP) == 0 {
		return nil
	}
	var errs diag.List
	for _, s := range cc.p.HTTP {
		if !httpEngines[cc.tgt.Engine] {
			errs.Add(project.FileName, s.Line, 0, "[http.%s]: HTTP sources are not supported on %s yet (target %s); they load on duckdb, postgres and mysql", s.Name, cc.tgt.Engine, cc.target)
			continue
		}
		rel := plan.Relation{Schema: firstNonEmpty(s.Schema, cc.p.SeedSchema, cc.tgt.Schema), Name: s.Name}
		cc.plan.Nodes[s.Name] = &plan.Node{Name: s.Name, Path: project.FileName, Seed: true, HTTP: true, Relation: rel, CodeHash: HTTPHash(s),
			OnSchemaChange: s.OnSchemaChange}
		cc.plan.Graph.Add(s.Name)
		cc.names = append(cc.names, s.Name)
	}
	sort.Strings(cc.names)
	return errs.Err()
}

// HTTPHash is an HTTP source's code hash: its settings as written (a
// header's ${VAR} reference, never its value), so that changing the source
// is visible in its audit rows.
func HTTPHash(s *project.HTTPSource) string {
	b, _ := json.Marshal(s)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// httpSource plans an HTTP source's fetch. It runs whenever it is chosen
// and the command ingests (build, ingest): only the API can tell whether
// it changed, and its conditional requests and content hashes make a run
// over an unchanged API write nothing.
func (pl *planner) httpSource(n string, node *plan.Node) error {
	fp := fingerprintOf(node.CodeHash, pl.target, node.Relation, nil)
	exists := pl.opts.State.Exists(node.Relation)
	pl.vers.model[n] = pl.stateVersion(n, "", exists)
	if !pl.chosen[n] || !pl.opts.HTTP {
		return nil
	}
	if pl.opts.Units != nil && !contains(pl.opts.Units, n) {
		return nil
	}
	s := pl.p.HTTPSourceNamed(n)
	u := &plan.Unit{ID: n, Model: n, Seed: true, HTTP: true, SeedPath: s.URL, CodeHash: node.CodeHash, Inputs: fp, DataVersion: pl.runVersion()}
	pl.plan.Units = append(pl.plan.Units, u)
	pl.unitsOf[n] = []*plan.Unit{u}
	pl.plan.UnitGraph.Add(u.ID)
	pl.vers.model[n] = u.DataVersion
	return nil
}

func anyHTTP(pl *plan.Plan, names map[string]bool) bool {
	for n := range names {
		if pl.Nodes[n].HTTP {
			return true
		}
	}
	return false
}
