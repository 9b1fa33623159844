package statefuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// switchKinds are the materializations OpMaterialize switches between.
// Ephemeral is left out: an ephemeral model has no relation to compare,
// and revert already brings a generated ephemeral model back.
var switchKinds = []string{KindView, KindTable, KindDeleteInsert, KindInsertOverwrite, KindMerge}

// canSwitch reports whether model m of p may become kind: what the
// generator would have allowed for a model of that kind in its place.
// Apply checks it on the project as it is then, so that an operation left
// without its reason by shrinking does nothing.
func canSwitch(p *Project, m *Model, kind string) bool {
	switch {
	case m.Kind == kind:
		return false
	case m.Shape == ShapeAgg:
		return kind == KindView || kind == KindTable
	case kind == KindMerge:
		// Nothing reads a merge model (see readable in generator.go).
		return len(p.readers(m.Name)) == 0
	}
	return true
}

// materialize switches the model's materialization, choosing the settings
// the new kind needs from the operation (N: bit 0 the merge key, bit 1 the
// first partition) where the model has none yet.
func (o Op) materialize(p *Project) {
	m := p.Model(o.Node)
	if m == nil || !canSwitch(p, m, o.S) {
		return
	}
	m.Kind = o.S
	if m.Kind == KindMerge && len(m.Key) == 0 {
		m.Key = [][]string{{"id"}, {"k", "id"}}[o.N&1]
	}
	if m.Partitioned() && m.Start == "" {
		m.Start = days[1+(o.N>>1&1)]
	}
}

// fault is the kill or interrupt that lands on the first build after a
// file operation (OpMaterialize's Fault: "crash:<purpose>" or
// "sigint:<ms>"), as the operation it would be on its own.
func (o Op) fault() (Op, bool) {
	how, arg, ok := strings.Cut(o.Fault, ":")
	switch {
	case !ok:
		return Op{}, false
	case how == "crash":
		return Op{Kind: OpKill, S: arg, Retry: o.Retry}, true
	case how == "sigint":
		ms, _ := strconv.Atoi(arg)
		return Op{Kind: OpInterrupt, N: ms, Retry: o.Retry}, true
	}
	return Op{}, false
}

// switchPurposes are the steps a switch is killed after: those of the
// kill operation and the replacement's own (prepare and schema steps).
var switchPurposes = append([]string{"prepare", "schema"}, killPurposes...)

// materializeOp picks a kind the model may switch to now, and in one of
// three cases a kill or interrupt of the build that switches it.
func materializeOp(r *rand.Rand, p *Project, model string) (Op, bool) {
	m := p.Model(model)
	kinds := slices.DeleteFunc(slices.Clone(switchKinds), func(k string) bool { return !canSwitch(p, m, k) })
	if len(kinds) == 0 {
		return Op{}, false
	}
	op := Op{Kind: OpMaterialize, Node: model, S: kinds[r.IntN(len(kinds))], N: r.IntN(4)}
	switch r.IntN(6) {
	case 0:
		op.Fault = "crash:" + switchPurposes[r.IntN(len(switchPurposes))]
		op.Retry = r.IntN(2) == 0
	case 1:
		op.Fault = fmt.Sprintf("sigint:%d", 50+r.IntN(200))
		op.Retry = r.IntN(2) == 0
	}
	return op, true
}

func (o Op) materializeText() string {
	s := fmt.Sprintf("models/%s.sql: materialization becomes %s", o.Node, o.S)
	if f, ok := o.fault(); ok {
		s += "; " + f.String() + " (the build that switches it)"
	}
	return s
}
