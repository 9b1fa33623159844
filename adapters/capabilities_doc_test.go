package adapters_test

import (
	"os"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/dialecttest"
)

// Markers of the generated capability table in docs/engines.md.
const (
	capsBegin = "<!-- capabilities: generated from each dialect's Capabilities by TestEnginesDocCapabilityTable; `go test ./adapters -run TestEnginesDoc -update` rewrites it -->"
	capsEnd   = "<!-- end of the generated capabilities -->"
)

// capabilityTable is the Markdown table of every registered engine's
// Capabilities, one row per engine.
func capabilityTable() string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	var b strings.Builder
	b.WriteString("| engine | transactional DDL | MERGE | native partition overwrite | checks inside the write | one script | unit lock step | table rebuilt in place | definition replaced with the rows | one writer process | how two runs writing one unit are serialized |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, name := range adapters.Names() {
		ad, _ := adapters.Lookup(name)
		c := ad.Capabilities
		lock := yes(c.UnitLock)
		if c.UnitClaim {
			lock = "a claimed row"
		}
		cells := []string{name, yes(c.TransactionalDDL), yes(c.Merge), yes(c.PartitionOverwrite), yes(c.ChecksInWrite), yes(c.Script),
			lock, yes(c.TableInPlace), yes(c.ReplaceDefinition), yes(c.SingleWriter), strings.ReplaceAll(c.Lock, "|", "\\|")}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// TestEnginesDocCapabilityTable: the capability table of docs/engines.md is
// the code's (each dialect's Capabilities); -update rewrites it.
func TestEnginesDocCapabilityTable(t *testing.T) {
	const path = "../docs/engines.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, capsBegin), strings.Index(doc, capsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated capability table (the lines %q and %q around it)", path, capsBegin, capsEnd)
	}
	got := doc[:i+len(capsBegin)] + "\n" + capabilityTable() + doc[j:]
	if got == doc {
		return
	}
	if *dialecttest.Update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's capability table differs from the code's; run `go test ./adapters -run TestEnginesDoc -update` and review the diff. The code's:\n%s", path, capabilityTable())
}
