package statefuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Operation kinds. Those marked "files" change the project; the others act
// on the warehouse or run idemc, and leave the files as they are.
const (
	OpSeedAppend  = "seed_append"  // files: append a row to a seed
	OpSeedEdit    = "seed_edit"    // files: change one field of one row
	OpSeedDelete  = "seed_delete"  // files: delete one row
	OpSeedRetype  = "seed_retype"  // files: amount integer <-> decimal
	OpSeedColumn  = "seed_column"  // files: add or drop the note column
	OpModelEdit   = "model_edit"   // files: change a constant of the SELECT
	OpRevert      = "revert"       // files: go back to the files of N operations ago
	OpColumn      = "column"       // files: add, drop or retype the c_x column
	OpSchema      = "schema"       // files: toggle the model's schema setting
	OpAlias       = "alias"        // files: toggle the model's alias
	OpSeedSchema  = "seed_schema"  // files: toggle [seeds] schema
	OpLineage     = "lineage"      // files: toggle [models] lineage_columns (inserted by Sequence, not drawn)
	OpCheckFail   = "check_fail"   // files: add a check that fails every unit
	OpCheckPass   = "check_pass"   // files: remove it again
	OpMaterialize = "materialize"  // files: switch a model's materialization (then maybe kill or interrupt its build)
	OpDropOutside = "drop_outside" // engine SQL: drop or empty a destination
	OpKill        = "kill"         // kill -9 a build (IDEMC_FAULT crash rule or timer)
	OpInterrupt   = "interrupt"    // SIGINT a build mid-flight
	OpDropLatest  = "drop_latest"  // engine SQL: drop idemc_latest (the next run with work fills it from the audit table)
	OpVerify      = "verify"       // idemc verify
	OpSelect      = "select"       // idemc build --select
)

// Op is one operation. The fields used depend on Kind; an operation whose
// node no longer exists (after shrinking) does nothing, so any subsequence
// of operations is a valid sequence.
type Op struct {
	Kind  string
	Node  string  // the seed or model acted on
	N     int     // row index, constant, revert distance or delay in ms
	S     string  // field, column form, drop mode, fault purpose or selector form
	Row   SeedRow // appended row or new field value
	Retry bool    // kill/interrupt (and materialize's Fault): run `idemc retry` afterwards
	// Fault (materialize only): "crash:<purpose>" or "sigint:<ms>", a
	// kill or interrupt of the first build of the new files.
	Fault string
}

// ChangesFiles reports whether the operation edits the project.
func (o Op) ChangesFiles() bool {
	switch o.Kind {
	case OpDropOutside, OpDropLatest, OpKill, OpInterrupt, OpVerify, OpSelect:
		return false
	}
	return true
}

// String describes the operation for a reproduction.
func (o Op) String() string {
	switch o.Kind {
	case OpSeedAppend:
		return fmt.Sprintf("append a row (next id) day=%s k=%q amount=%d cat=%s to seeds/%s.csv", o.Row.Day, o.Row.K, o.Row.Amount, o.Row.Cat, o.Node)
	case OpSeedEdit:
		return fmt.Sprintf("edit seeds/%s.csv row %d: set %s", o.Node, o.N, o.S)
	case OpSeedDelete:
		return fmt.Sprintf("delete row %d of seeds/%s.csv", o.N, o.Node)
	case OpSeedRetype:
		return fmt.Sprintf("retype amount in seeds/%s.csv (integer <-> decimal)", o.Node)
	case OpSeedColumn:
		return fmt.Sprintf("add or drop column note in seeds/%s.csv", o.Node)
	case OpModelEdit:
		return fmt.Sprintf("edit models/%s.sql: %s = %d", o.Node, o.S, o.N)
	case OpRevert:
		return fmt.Sprintf("revert the files to how they were %d file operations ago", o.N)
	case OpColumn:
		return fmt.Sprintf("models/%s.sql: column c_x becomes %q (\"\" = dropped)", o.Node, o.S)
	case OpSchema, OpAlias:
		return fmt.Sprintf("toggle %s of models/%s.sql", o.Kind, o.Node)
	case OpSeedSchema:
		return "toggle [seeds] schema"
	case OpLineage:
		return "toggle [models] lineage_columns"
	case OpCheckFail:
		return fmt.Sprintf("models/%s.sql: add min_rows = 100000 (fails)", o.Node)
	case OpCheckPass:
		return fmt.Sprintf("models/%s.sql: remove the failing check", o.Node)
	case OpMaterialize:
		return o.materializeText()
	case OpDropOutside:
		return fmt.Sprintf("outside idemc: %s the relation of %s", o.S, o.Node)
	case OpKill:
		return fmt.Sprintf("kill -9 a build (%s)%s", o.killHow(), retryText(o.Retry))
	case OpInterrupt:
		return fmt.Sprintf("SIGINT a build after %dms%s", o.N, retryText(o.Retry))
	case OpDropLatest:
		return "outside idemc: drop idemc_latest"
	case OpVerify:
		return "idemc verify"
	case OpSelect:
		return "idemc build --select " + o.selector()
	}
	return o.Kind
}

func retryText(r bool) string {
	if r {
		return ", then idemc retry"
	}
	return ""
}

func (o Op) killHow() string {
	if o.S != "" {
		return "IDEMC_FAULT=crash:*:" + o.S
	}
	return fmt.Sprintf("after %dms", o.N)
}

func (o Op) selector() string {
	switch o.S {
	case "up":
		return "+" + o.Node
	case "down":
		return o.Node + "+"
	}
	return o.Node
}

// Apply returns the project after the operation; history holds the
// projects before each earlier file operation (for revert). p is not changed.
func (o Op) Apply(p *Project, history []*Project) *Project {
	if !o.ChangesFiles() {
		return p
	}
	if o.Kind == OpRevert {
		if o.N < 1 || o.N > len(history) {
			return p
		}
		return history[len(history)-o.N].Clone()
	}
	q := p.Clone()
	if s := q.Seed(o.Node); s != nil {
		o.applySeed(s)
	}
	if m := q.Model(o.Node); m != nil {
		o.applyModel(m)
	}
	if o.Kind == OpSeedSchema {
		q.SeedsAlt = !q.SeedsAlt
	}
	if o.Kind == OpLineage {
		q.Lineage = !q.Lineage
	}
	if o.Kind == OpMaterialize {
		o.materialize(q)
	}
	return q
}

func (o Op) applySeed(s *Seed) {
	switch o.Kind {
	case OpSeedAppend:
		row := o.Row
		for _, r := range s.Rows {
			row.ID = max(row.ID, r.ID+1) // ids stay unique
		}
		s.Rows = append(s.Rows, row)
	case OpSeedEdit:
		if len(s.Rows) == 0 {
			return
		}
		r := &s.Rows[o.N%len(s.Rows)]
		switch o.S {
		case "day":
			r.Day = o.Row.Day
		case "k":
			r.K = o.Row.K
		case "amount":
			r.Amount = o.Row.Amount
		case "cat":
			r.Cat = o.Row.Cat
		}
	case OpSeedDelete:
		if len(s.Rows) > 0 {
			s.Rows = slices.Delete(s.Rows, o.N%len(s.Rows), o.N%len(s.Rows)+1)
		}
	case OpSeedRetype:
		s.Decimal = !s.Decimal
	case OpSeedColumn:
		s.Note = !s.Note
	}
}

func (o Op) applyModel(m *Model) {
	switch o.Kind {
	case OpModelEdit:
		if o.S == "filter" {
			m.MinAmount = o.N
		} else {
			m.Bump = o.N
		}
	case OpColumn:
		m.Extra = o.S
	case OpSchema:
		m.Schema = !m.Schema
	case OpAlias:
		m.Alias = !m.Alias
	case OpCheckFail:
		if m.Relation() && m.Kind != KindView {
			m.Checks.Failing = true
		}
	case OpCheckPass:
		m.Checks.Failing = false
	}
}

// killPurposes are the steps a crash rule may follow; a recipe without that
// step is simply not killed.
var killPurposes = []string{"latest_start", "audit_start", "insert", "delete", "merge", "check", "publish", "audit_finish", "latest_end", "commit"}

// GenerateOps returns n random operations for p, each chosen on the project
// as the operations before it leave it.
func GenerateOps(r *rand.Rand, p *Project, n int) []Op {
	var ops []Op
	var history []*Project
	for range n {
		op := randomOp(r, p, len(history))
		p, history = advance(p, history, op)
		ops = append(ops, op)
	}
	return ops
}

// advance applies op to p and returns the new project and history: the
// project before every file operation so far, in order.
func advance(p *Project, history []*Project, op Op) (*Project, []*Project) {
	if !op.ChangesFiles() {
		return p, history
	}
	return op.Apply(p, history), append(history, p)
}

func randomOp(r *rand.Rand, p *Project, fileOps int) Op {
	seed := p.Seeds[r.IntN(len(p.Seeds))].Name
	model := p.Models[r.IntN(len(p.Models))].Name
	nodes := p.Nodes()
	node := nodes[r.IntN(len(nodes))]
	row := randomRow(r, 0)
	// 100..105: a materialization switch (about one operation in 18).
	switch k := r.IntN(106); {
	case k < 12:
		return Op{Kind: OpSeedAppend, Node: seed, Row: row}
	case k < 20:
		return Op{Kind: OpSeedEdit, Node: seed, N: r.IntN(8), S: []string{"day", "k", "amount", "cat"}[r.IntN(4)], Row: row}
	case k < 25:
		return Op{Kind: OpSeedDelete, Node: seed, N: r.IntN(8)}
	case k < 28:
		return Op{Kind: OpSeedRetype, Node: seed}
	case k < 30:
		return Op{Kind: OpSeedColumn, Node: seed}
	case k < 40:
		return Op{Kind: OpModelEdit, Node: model, N: r.IntN(12), S: []string{"bump", "filter"}[r.IntN(2)]}
	case k < 46 && fileOps > 0:
		return Op{Kind: OpRevert, N: 1 + r.IntN(fileOps)}
	case k < 52:
		return Op{Kind: OpColumn, Node: model, S: []string{"", "int", "dec", "text"}[r.IntN(4)]}
	case k < 55:
		return Op{Kind: OpSchema, Node: model}
	case k < 58:
		return Op{Kind: OpAlias, Node: model}
	case k < 60:
		return Op{Kind: OpSeedSchema}
	case k < 64:
		return Op{Kind: OpCheckFail, Node: model}
	case k < 67:
		return Op{Kind: OpCheckPass, Node: model}
	case k < 75:
		return Op{Kind: OpDropOutside, Node: node, S: []string{"drop", "truncate"}[r.IntN(2)]}
	case k < 83:
		op := Op{Kind: OpKill, Retry: r.IntN(2) == 0, N: r.IntN(150)}
		if r.IntN(2) == 0 {
			op.S = killPurposes[r.IntN(len(killPurposes))]
		}
		return op
	case k < 89:
		return Op{Kind: OpInterrupt, Retry: r.IntN(2) == 0, N: 50 + r.IntN(200)}
	case k < 93:
		return Op{Kind: OpVerify}
	case k < 96:
		return Op{Kind: OpDropLatest}
	case k >= 100:
		if op, ok := materializeOp(r, p, model); ok {
			return op
		}
		fallthrough
	default:
		return Op{Kind: OpSelect, Node: model, S: []string{"one", "up", "down"}[r.IntN(3)]}
	}
}
