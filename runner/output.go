package runner

import (
	"fmt"
	"strings"
)

// line prints one finished unit: status, model, partition, kind, rows, time.
func (r *run) line(ur *UnitResult) {
	if ur.Status == StatusNotStarted {
		return // counted in the summary, not listed: there may be thousands
	}
	r.observeUnitEnd(ur)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done++
	r.finishedProgress(ur)
	if r.o.Out == nil {
		return
	}
	if r.o.Progress != nil {
		fmt.Fprint(r.o.Progress, "\r\033[K")
	}
	part := ur.Partition
	if part == "" {
		part = "-"
	}
	status := ur.Status
	if ur.Warned() {
		status = "warned"
	}
	width := len(fmt.Sprint(r.total))
	fmt.Fprintf(r.o.Out, "[%*d/%d] %-9s %-28s %-13s %-16s %8d rows %7.2fs\n", width, r.done, r.total, status, ur.Model, part, ur.Kind, ur.Rows, ur.Seconds)
	for _, c := range ur.Checks {
		if c.Status == CheckWarn {
			fmt.Fprintf(r.o.Out, "      warn: check %s: %s\n", c.Name, strings.Join(c.Sample, "; "))
		}
	}
	if ur.Note != "" {
		fmt.Fprintf(r.o.Out, "      note: %s\n", ur.Note)
	}
	r.drawProgress()
}

// summary prints the root causes and the totals. Units skipped because of a
// failure are counted but not repeated: only root causes are explained.
func (r *run) summary() {
	if r.o.Out == nil {
		return
	}
	out := r.o.Out
	for i, g := range failureGroups(r.res.Units) {
		if i == 0 {
			fmt.Fprintln(out, "\nFailures:")
		}
		u := g[0]
		switch {
		case len(g) > 1:
			fmt.Fprintf(out, "  %s partitions %s: %s\n", u.Model, partitionList(g), u.Error)
		case u.Partition != "":
			fmt.Fprintf(out, "  %s partition %s: %s\n", u.Model, u.Partition, u.Error)
		default:
			fmt.Fprintf(out, "  %s: %s\n", u.Model, u.Error)
		}
		if u.SQLFile != "" {
			more := ""
			if len(g) > 1 {
				more = " (and one file per partition beside it)"
			}
			fmt.Fprintf(out, "    compiled SQL: %s%s\n", u.SQLFile, more)
		}
	}
	for _, t := range r.res.Tests {
		fmt.Fprintf(out, "test %-40s %s", t.Path, t.Status)
		if t.Status != CheckPass {
			fmt.Fprintf(out, ": %s", t.Detail)
		}
		fmt.Fprintln(out)
	}
	if r.o.Retry {
		if r.res.RetryOf == "" {
			fmt.Fprintln(out, "nothing to retry: no run is recorded yet")
		} else if len(r.res.Units) == 0 {
			fmt.Fprintf(out, "nothing to retry: every unit of run %s succeeded\n", r.res.RetryOf)
		} else {
			fmt.Fprintf(out, "finished run %s: ran the units of its plan that were not done\n", r.res.RetryOf)
		}
	}
	if r.res.UpToDate > 0 && !r.o.Retry {
		fmt.Fprintf(out, "up to date: %s\n", upToDateSummary(r.res.UpToDateUnits, r.res.UpToDate))
	}
	if r.res.Interrupted() {
		fmt.Fprintf(out, "\n%s (run %s, %.2fs)\n", interruptedSummary(r.res), r.res.RunID, r.res.Seconds)
		return
	}
	tests := ""
	if n := TestsFailed(r.res.Tests); n > 0 {
		tests = fmt.Sprintf(", %d of %d tests failed", n, len(r.res.Tests))
	}
	fmt.Fprintf(out, "\nDone in %.2fs: %d succeeded, %d failed, %d skipped, %d up to date, %d warnings%s (run %s)\n",
		r.res.Seconds, r.res.Succeeded, r.res.Failed, r.res.Skipped, r.res.UpToDate, r.res.Warnings, tests, r.res.RunID)
	if r.res.Failed > 0 {
		fmt.Fprintln(out, "The failed units left their destinations as they were. Fix the cause and run the same command again.")
	}
	if r.fatal != nil && r.res.NotStarted > 0 {
		fmt.Fprintf(out, "stopped: %d units not started after %s %s\n", r.res.NotStarted, r.fatal.unit, r.fatal.reason())
	}
}

// UpToDateSummary is upToDateSummary, for idemc plan.
func UpToDateSummary(ids []string, total int) string { return upToDateSummary(ids, total) }

// upToDateSummary names the up-to-date units by model: "dim, events_daily
// (31 partitions)".
func upToDateSummary(ids []string, total int) string {
	var order []string
	parts := map[string]int{}
	for _, id := range ids {
		model := id
		if i := strings.IndexByte(id, '/'); i >= 0 {
			model = id[:i]
		}
		if _, ok := parts[model]; !ok {
			order = append(order, model)
		}
		if strings.IndexByte(id, '/') >= 0 {
			parts[model]++
		} else {
			parts[model] += 0
		}
	}
	out := make([]string, len(order))
	for i, m := range order {
		out[i] = m
		if n := parts[m]; n > 0 {
			out[i] = fmt.Sprintf("%s (%d partitions)", m, n)
		}
	}
	s := strings.Join(out, ", ")
	if len(ids) < total {
		s += fmt.Sprintf(" … %d units in all", total)
	}
	return s
}

// interruptedSummary is the last line of an interrupted run: what is done,
// what was rolled back, what is left, and how to finish. It says nothing of
// a fix: nothing is wrong with the data or the models.
func interruptedSummary(res *Result) string {
	parts := []string{fmt.Sprintf("%d succeeded", res.Succeeded)}
	if res.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", res.Failed))
	}
	if res.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", res.Skipped))
	}
	parts = append(parts, fmt.Sprintf("%d rolled back", res.RolledBack), fmt.Sprintf("%d not started", res.NotStarted))
	return "interrupted: " + strings.Join(parts, ", ") + ` — run "idemc retry" to finish`
}

// failureGroups are the failed units, those of one model failing with the
// same error together (an engine error repeated for every partition is
// explained once), in the order they finished.
func failureGroups(units []*UnitResult) [][]*UnitResult {
	var groups [][]*UnitResult
	at := map[string]int{}
	for _, u := range units {
		if u.Status != StatusFailed {
			continue
		}
		key := u.Model + "\x00" + u.Error
		if i, ok := at[key]; ok && u.Partition != "" {
			groups[i] = append(groups[i], u)
			continue
		}
		at[key] = len(groups)
		groups = append(groups, []*UnitResult{u})
	}
	return groups
}

// partitionList names a group's partitions: all of them up to ten, else
// the first ten and how many more.
func partitionList(g []*UnitResult) string {
	const most = 10
	var parts []string
	for i, u := range g {
		if i == most {
			return fmt.Sprintf("%s and %d more", strings.Join(parts, ", "), len(g)-most)
		}
		parts = append(parts, u.Partition)
	}
	return strings.Join(parts, ", ")
}
