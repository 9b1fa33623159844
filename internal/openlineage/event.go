package openlineage

import (
	"strings"
	"time"

	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

func facet(name string) map[string]any {
	return map[string]any{"_producer": producer, "_schemaURL": facetsBase + name}
}

// event is one run event of unit u; ur is nil for START.
func (e *Emitter) event(kind string, u *plan.Unit, ur *runner.UnitResult, at time.Time) map[string]any {
	e.mu.Lock()
	info := e.run
	e.mu.Unlock()
	pl := info.Plan
	runFacets := map[string]any{}
	if u.Write != nil && u.Write.Window != nil {
		f := facet("1-0-1/NominalTimeRunFacet.json#/$defs/NominalTimeRunFacet")
		f["nominalStartTime"] = u.Write.Window.Start.UTC().Format(time.RFC3339)
		f["nominalEndTime"] = u.Write.Window.End.UTC().Format(time.RFC3339)
		runFacets["nominalTime"] = f
	}
	if e.parent != nil {
		f := facet("1-0-1/ParentRunFacet.json#/$defs/ParentRunFacet")
		f["job"] = map[string]any{"namespace": e.parent.namespace, "name": e.parent.name}
		f["run"] = map[string]any{"runId": e.parent.runID}
		runFacets["parent"] = f
	}
	if ur != nil && ur.Error != "" {
		f := facet("1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet")
		f["message"], f["programmingLanguage"] = ur.Error, "SQL"
		runFacets["errorMessage"] = f
	}
	ev := map[string]any{
		"eventType": kind,
		"eventTime": at.UTC().Format(time.RFC3339Nano),
		"producer":  producer,
		"schemaURL": specURL,
		"run":       map[string]any{"runId": RunID(info.RunID, u.ID), "facets": runFacets},
		"job": map[string]any{"namespace": e.cfg.Namespace, "name": info.Project + "." + u.Model,
			"facets": map[string]any{"jobType": jobType(u)}},
		"inputs":  []any{},
		"outputs": []any{},
	}
	if pl == nil {
		return ev
	}
	ns := info.Engine + "://" + info.Target
	var inputs []any
	for _, up := range pl.Graph.Upstream(u.Model) {
		if n := pl.Nodes[up]; n != nil {
			inputs = append(inputs, map[string]any{"namespace": ns, "name": dataset(n.Relation)})
		}
	}
	if inputs != nil {
		ev["inputs"] = inputs
	}
	node := pl.Nodes[u.Model]
	if node == nil {
		return ev
	}
	out := map[string]any{"namespace": ns, "name": dataset(node.Relation), "facets": e.outputFacets(node, ns, ur)}
	if ur != nil && ur.Status == runner.StatusSucceeded {
		f := facet("1-0-2/OutputStatisticsOutputDatasetFacet.json#/$defs/OutputStatisticsOutputDatasetFacet")
		f["rowCount"] = ur.Rows
		out["outputFacets"] = map[string]any{"outputStatistics": f}
	}
	ev["outputs"] = []any{out}
	return ev
}

func jobType(u *plan.Unit) map[string]any {
	f := facet("2-0-3/JobTypeJobFacet.json#/$defs/JobTypeJobFacet")
	f["processingType"], f["integration"], f["jobType"] = "BATCH", "IDEMC", strings.ToUpper(strings.ReplaceAll(u.Kind(), " ", "_"))
	return f
}

// dataset names a relation schema.table (database.schema.table when it
// has a database).
func dataset(r plan.Relation) string {
	var parts []string
	for _, p := range []string{r.Database, r.Schema, r.Name} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ".")
}

// outputFacets: the column lineage the analysis read (columns it could not
// read are left out, never guessed) and the checks as assertions.
func (e *Emitter) outputFacets(node *plan.Node, ns string, ur *runner.UnitResult) map[string]any {
	facets := map[string]any{}
	fields := map[string]any{}
	for _, l := range node.Lineage {
		if l.Unknown != "" {
			continue
		}
		var in []any
		for _, s := range l.Sources {
			if s.Table == "" {
				continue // an unqualified column of a join: not known
			}
			name := s.Table
			if n := e.node(s.Table); n != nil {
				name = dataset(n.Relation)
			}
			in = append(in, map[string]any{"namespace": ns, "name": name, "field": s.Column})
		}
		fields[l.Column] = map[string]any{"inputFields": orEmpty(in)}
	}
	if len(fields) > 0 {
		f := facet("1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet")
		f["fields"] = fields
		facets["columnLineage"] = f
	}
	if ur != nil && len(ur.Checks) > 0 {
		var as []any
		for _, c := range ur.Checks {
			as = append(as, map[string]any{"assertion": c.Name, "success": c.Status != runner.CheckFail && c.Status != runner.CheckWarn})
		}
		f := facet("1-0-1/DataQualityAssertionsDatasetFacet.json#/$defs/DataQualityAssertionsDatasetFacet")
		f["assertions"] = as
		facets["dataQualityAssertions"] = f
	}
	return facets
}

func (e *Emitter) node(name string) *plan.Node {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.run.Plan == nil {
		return nil
	}
	return e.run.Plan.Nodes[name]
}

func orEmpty(xs []any) []any {
	if xs == nil {
		return []any{}
	}
	return xs
}
