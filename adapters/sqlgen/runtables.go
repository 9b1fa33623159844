package sqlgen

// The tables a run creates beside a destination and drops itself (stages,
// seed-load tables, HTTP landing tables) end with its tag, so that the
// next run can tell and drop those a killed run left (runner's
// dropStaleStages).

import (
	"fmt"
	"strings"

	"github.com/idemc/idemc/plan"
)

// SeedLoadRun reports whether name is a seed load's table of dest named by
// a run (SeedLoadName: dest__idemc_new_ and 8 hex digits, any case), and
// the tag it ends with.
func SeedLoadRun(dest, name string) (tag string, ok bool) {
	dest, name = strings.ToLower(dest), strings.ToLower(name)
	return runSuffix(name, dest+"__idemc_new_")
}

// runSuffix reports whether name is prefix, then anything, then '_' and 8
// hex digits (the prefix may end with the '_'), and those digits.
func runSuffix(name, prefix string) (string, bool) {
	if !strings.HasPrefix(name, prefix) || len(name) < len(prefix)+8 {
		return "", false
	}
	tag := name[len(name)-8:]
	if name[len(name)-9] != '_' || strings.Trim(tag, "0123456789abcdef") != "" {
		return "", false
	}
	return tag, true
}

// RunTag is the 8 hex digits a run's stages and seed-load tables end with.
func RunTag(runID string) string { return fmt.Sprintf("%08x", Hash32(runID)) }

// StageRun reports whether name is a stage of dest named by a run
// (dest__idemc_stage…_ and 8 hex digits, any case), and the tag it ends
// with.
func StageRun(dest, name string) (tag string, ok bool) {
	dest, name = strings.ToLower(dest), strings.ToLower(name)
	return runSuffix(name, dest+"__idemc_stage")
}

// HTTPLandingName is the table an HTTP source's pages land in before they
// are merged into its destination r: one per run (tag, RunTag), which the
// next run drops if the ingest died with its run (HTTPLandingRun).
func HTTPLandingName(r plan.Relation, tag string) plan.Relation {
	r.Name = portableDerive(r.Name, "__idemc_http_"+tag)
	return r
}

// HTTPLandingRun reports whether name is an HTTP landing table of dest
// (HTTPLandingName), or a seed-load table of one (SeedLoadName), and the
// run tag it ends with.
func HTTPLandingRun(dest, name string) (tag string, ok bool) {
	dest, name = strings.ToLower(dest), strings.ToLower(name)
	return runSuffix(name, dest+"__idemc_http_")
}
