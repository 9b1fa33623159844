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
