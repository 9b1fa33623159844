package statefuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// planned is what `idemc plan` says the next build runs, as model/partition
// ids; nil when plan refused (the build then refuses too, which the exit
// code comparison checks).
func (s *sequenceRun) planned(ctx context.Context) []string {
	out := runIdemc(ctx, s.c.Bin, s.w, nil, "plan", "--json", "--as-of", AsOf)
	if out.Exit != 0 {
		return nil
	}
	var pl struct {
		Plan struct {
			Units []struct{ Unit string }
		}
	}
	i := strings.IndexByte(out.Output, '{')
	if i < 0 || json.Unmarshal([]byte(out.Output[i:]), &pl) != nil {
		return []string{"unreadable plan: " + out.Output}
	}
	ids := []string{}
	for _, u := range pl.Plan.Units {
		ids = append(ids, u.Unit)
	}
	sort.Strings(ids)
	return ids
}

// replanDiffs is the check of a plan made right after a build that
// succeeded: building twice is building once, so it must list nothing. A
// model whose code hash depends on the warehouse (is_incremental() on a
// first build) would be listed: its hash changes once its relation exists.
func replanDiffs(planned []string) []Difference {
	if len(planned) == 0 {
		return nil // nothing to run; or nil, refused: the next build's exit code comparison sees that
	}
	return []Difference{{What: "replan", Detail: fmt.Sprintf("idemc plan right after a build that succeeded lists %v: a second build would run them", planned)}}
}

// planDiffs compares the plan with the units the build ran (skipped ones
// included: plan cannot foresee a failure, only what is stale).
func planDiffs(planned []string, out Outcome) []Difference {
	if out.Exit == 2 {
		return nil // refused before running: run_results.json is an older run's
	}
	ran := []string{}
	for model, parts := range out.Units {
		for part := range parts {
			id := model
			if part != "" {
				id += "/" + part
			}
			ran = append(ran, id)
		}
	}
	sort.Strings(ran)
	if strings.Join(ran, " ") == strings.Join(planned, " ") {
		return nil
	}
	return []Difference{{What: "plan", Detail: fmt.Sprintf("idemc plan listed %v, the build ran %v", planned, ran)}}
}
