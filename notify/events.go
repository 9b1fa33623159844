// Package notify is `idemc notify`: it derives events from the audit table
// into the outbox idemc_outbox and delivers each one to its [[notify]]
// endpoint, after publish and never inside a build (DESIGN §14,
// docs/notify.md). An event's id is deterministic, so deriving again, a
// second observer or an identical rebuild creates no new event; delivery
// is at least once with the id as the Idempotency-Key, and a lease on the
// outbox row keeps two observers from sending one event at once.
package notify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// unitRow is a unit's latest finished audit row.
type unitRow struct {
	Model, Partition, Status, RunID, Inputs, Error string
	Rows                                           int64
	Attempt                                        int64
	Checks                                         []check
}

type check struct {
	Name   string   `json:"name"`
	Status string   `json:"status"`
	Sample []string `json:"sample,omitempty"` // a drift's evidence: row_count, median, ratio
}

// runRow is a finished run of idemc_runs.
type runRow struct {
	RunID, Command, Target, AsOf, Outcome string
	Succeeded, Failed, Skipped            int64
}

// payload is the JSON body an endpoint receives; text is for Slack.
type payload struct {
	Text      string  `json:"text"`
	EventID   string  `json:"event_id"`
	Notify    string  `json:"notify"`
	Event     string  `json:"event"`
	Project   string  `json:"project"`
	Model     string  `json:"model,omitempty"`
	Partition string  `json:"partition,omitempty"`
	RunID     string  `json:"run_id,omitempty"`
	Rows      *int64  `json:"rows,omitempty"`
	Error     string  `json:"error,omitempty"`
	Checks    []check `json:"checks,omitempty"`
	Outcome   string  `json:"outcome,omitempty"`
}

// eventID is deterministic from the notify name, the event, the model, the
// partition and what identifies the published data: the unit's input
// fingerprint for a success (same code and inputs give the same rows, so an
// identical forced rebuild has the same id), the run and attempt for a
// failure, the run for a run.
func eventID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// derive is the events of n from the latest unit rows and the finished
// runs, for the models in chosen.
func derive(n *project.Notify, projectName string, units []unitRow, runs []runRow, chosen map[string]bool, now time.Time) []sqlgen.OutboxEvent {
	var out []sqlgen.OutboxEvent
	add := func(id string, p payload, model, part, source string) {
		p.EventID, p.Notify, p.Event, p.Project = id, n.Name, n.On, projectName
		b, _ := json.Marshal(p)
		out = append(out, sqlgen.OutboxEvent{ID: id, Notify: n.Name, Event: n.On, Model: model, Partition: part, SourceRun: source, Payload: string(b), Created: now})
	}
	switch n.On {
	case "partition_succeeded", "check_warned", "unit_failed", "drift":
		for _, u := range units {
			if !chosen[u.Model] {
				continue
			}
			rows := u.Rows
			p := payload{Model: u.Model, Partition: u.Partition, RunID: u.RunID, Rows: &rows, Checks: u.Checks}
			switch {
			case n.On == "partition_succeeded" && u.Status == "succeeded":
				p.Text = fmt.Sprintf("%s %s published: %d rows (run %s)", u.Model, partLabel(u.Partition), u.Rows, u.RunID)
				add(eventID(n.Name, n.On, u.Model, u.Partition, u.Inputs), p, u.Model, u.Partition, u.RunID)
			case n.On == "check_warned" && u.Status == "succeeded":
				for _, c := range u.Checks {
					if c.Status == "warn" && !strings.HasPrefix(c.Name, plan.DriftPrefix) { // drift has its own event
						p.Text = fmt.Sprintf("%s %s: check %s warned (run %s)", u.Model, partLabel(u.Partition), c.Name, u.RunID)
						add(eventID(n.Name, n.On, u.Model, u.Partition, u.Inputs, c.Name), p, u.Model, u.Partition, u.RunID)
					}
				}
			case n.On == "drift" && u.Status == "succeeded":
				// A warned drift committed; an error drift failed the unit
				// (a unit_failed event), so it publishes nothing here.
				if drift := drifted(u.Checks); len(drift) > 0 {
					p.Checks = drift
					p.Text = fmt.Sprintf("%s %s: drift %s %s (run %s)", u.Model, partLabel(u.Partition), drift[0].Name, strings.Join(drift[0].Sample, " "), u.RunID)
					add(eventID(n.Name, n.On, u.Model, u.Partition, u.Inputs), p, u.Model, u.Partition, u.RunID)
				}
			case n.On == "unit_failed" && u.Status == "failed":
				p.Error, p.Rows = u.Error, nil
				p.Text = fmt.Sprintf("%s %s failed (run %s): %s", u.Model, partLabel(u.Partition), u.RunID, firstLine(u.Error))
				add(eventID(n.Name, n.On, u.Model, u.Partition, u.RunID, strconv.FormatInt(u.Attempt, 10)), p, u.Model, u.Partition, u.RunID)
			}
		}
	case "model_succeeded":
		modelEvents(n, units, chosen, add)
	case "run_finished":
		for _, r := range runs {
			p := payload{RunID: r.RunID, Outcome: r.Outcome,
				Text: fmt.Sprintf("idemc %s on %s %s: %d succeeded, %d failed, %d skipped (run %s)", r.Command, r.Target, r.Outcome, r.Succeeded, r.Failed, r.Skipped, r.RunID)}
			add(eventID(n.Name, n.On, r.RunID), p, "", "", r.RunID)
		}
	}
	return out
}

// modelEvents: a model has succeeded when every one of its units' latest
// rows succeeded; the event's id covers every unit's input fingerprint.
func modelEvents(n *project.Notify, units []unitRow, chosen map[string]bool, add func(string, payload, string, string, string)) {
	byModel := map[string][]unitRow{}
	for _, u := range units {
		if chosen[u.Model] {
			byModel[u.Model] = append(byModel[u.Model], u)
		}
	}
	models := make([]string, 0, len(byModel))
	for m := range byModel {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		us := byModel[m]
		parts := []string{n.Name, n.On, m}
		var rows int64
		ok, latest := true, ""
		for _, u := range us {
			ok = ok && u.Status == "succeeded"
			parts = append(parts, u.Partition, u.Inputs)
			rows += u.Rows
			latest = max(latest, u.RunID)
		}
		if !ok {
			continue
		}
		add(eventID(parts...), payload{Model: m, RunID: latest, Rows: &rows,
			Text: fmt.Sprintf("%s published: %d units, %d rows (run %s)", m, len(us), rows, latest)}, m, "", latest)
	}
}

// drifted are the drift rules that warned in a unit's checks.
func drifted(cs []check) []check {
	var out []check
	for _, c := range cs {
		if c.Status == "warn" && strings.HasPrefix(c.Name, plan.DriftPrefix) {
			out = append(out, c)
		}
	}
	return out
}

func partLabel(p string) string {
	if p == "" {
		return ""
	}
	return "partition " + p
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
