package compiler

import (
	"sort"
	"time"

	"github.com/idemc/idemc/compiler/analyze"
	"github.com/idemc/idemc/compiler/dag"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/compiler/render"
	"github.com/idemc/idemc/plan"
)

// compiled is one model after render and analysis.
type compiled struct {
	m        *project.Model
	cfg      *project.ModelConfig
	tpl      *render.Rendered
	res      analyze.Result
	rel      plan.Relation
	strategy string
	gran     string
	start    time.Time // first partition
	checks   []*plan.Check
	drift    []*plan.Check // [drift] rules, checks of the writes only
	extraUp  []string      // upstream models named by checks (order only)
	dataUp   []string      // refs and the seeds loading the sources it reads
	// resolved names the relation each ref() and source() of its SQL
	// resolves to: the code hash names refs by model, but a model or
	// seed moved to another schema changes what the SQL reads.
	resolved []string
	hash     string
	external bool // reads a source that no seed loads: its data can change unseen
	// incremental is what is_incremental() answered in its render.
	incremental bool
}

// addNodes starts the plan with a node for every seed and model of the
// project, placed in the target's schemas.
func (cc *compilation) addNodes() {
	p, tgt := cc.p, cc.tgt
	pl := &plan.Plan{Project: p.Name, Target: cc.target, Engine: tgt.Engine, AsOf: cc.opts.AsOf, Nodes: map[string]*plan.Node{}, Graph: dag.New()}
	cc.plan = pl
	for _, s := range p.Seeds {
		sch := schemaOf(p, firstNonEmpty(s.Schema, p.SeedSchema), tgt.Schema)
		pl.Nodes[s.Name] = &plan.Node{Name: s.Name, Path: s.Path, Seed: true, Relation: plan.Relation{Schema: sch, Name: s.Name}}
		pl.Graph.Add(s.Name)
	}
	cc.models = map[string]*compiled{}
	cc.list = make([]*compiled, len(p.Models))
	for i, m := range p.Models {
		c := &compiled{m: m, cfg: &m.Config, strategy: m.Strategy, gran: m.Granularity, start: m.FirstPartition}
		c.rel = plan.Relation{Schema: schemaOf(p, m.Config.Schema, tgt.Schema), Name: firstNonEmpty(m.Config.Alias, m.Name)}
		cc.list[i] = c
		cc.models[m.Name] = c
		pl.Graph.Add(m.Name)
	}
	cc.names = make([]string, 0, len(pl.Nodes)+len(cc.models))
	for n := range pl.Nodes {
		cc.names = append(cc.names, n)
	}
	for n := range cc.models {
		cc.names = append(cc.names, n)
	}
	sort.Strings(cc.names)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// schemaOf is where a model or the seeds are written: their schema, else
// the target's. In a dbt project a schema is appended to the target's, as
// dbt's default generate_schema_name does (docs.getdbt.com, "Custom
// schemas"), so the relations are where dbt writes them.
func schemaOf(p *project.Project, schema, targetSchema string) string {
	if p.DBT && schema != "" && targetSchema != "" {
		return targetSchema + "_" + schema
	}
	return firstNonEmpty(schema, targetSchema)
}
