package project

import (
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/idemc/idemc/compiler/diag"
)

// Notify is one [[notify]] table: a side effect `idemc notify` performs
// after publish, never a build (DESIGN §14, docs/notify.md).
type Notify struct {
	Name    string
	On      string // one of NotifyEvents
	Select  string // a selector over models; "" = every model
	URL     string // POST the event as JSON, or
	Command []string
	// Headers and Secret may hold ${VAR}, resolved when delivering.
	Headers map[string]string
	Secret  string // signs the Standard Webhooks webhook-signature header
	Line    int    // of its [[notify]] header in project.toml
}

// NotifyEvents are the events a [[notify]] can be on.
var NotifyEvents = []string{"partition_succeeded", "model_succeeded", "run_finished", "check_warned", "unit_failed", "drift"}

var notifyKeys = []string{"name", "on", "select", "url", "command", "headers", "secret"}

type rawNotify struct {
	Name    string            `toml:"name"`
	On      string            `toml:"on"`
	Select  string            `toml:"select"`
	URL     string            `toml:"url"`
	Command []string          `toml:"command"`
	Headers map[string]string `toml:"headers"`
	Secret  string            `toml:"secret"`
}

// parseNotify checks the [[notify]] tables: every problem at its table's
// line, with the remedy.
func (p *Project) parseNotify(text string, raw []rawNotify, errs *diag.List) {
	lines := arrayTableLines(text, "notify")
	seen := map[string]bool{}
	for i, r := range raw {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		bad := func(format string, a ...any) { errs.Add(FileName, line, 0, format, a...) }
		label := r.Name
		if label == "" {
			label = fmt.Sprintf("#%d", i+1)
		}
		switch {
		case r.Name == "":
			bad(`[[notify]] needs name = "events_ready": it names the side effect in the outbox`)
		case seen[r.Name]:
			bad("[[notify]] name %q is used twice: each needs its own name", r.Name)
		}
		seen[r.Name] = true
		if !contains(NotifyEvents, r.On) {
			bad("[[notify]] %s: on = %q is not an event%s", label, r.On, didYouMeanValue(r.On, NotifyEvents))
		}
		switch {
		case r.URL == "" && len(r.Command) == 0:
			bad(`[[notify]] %s needs url = "https://…" or command = ["./script.sh", "{{ model }}"]`, label)
		case r.URL != "" && len(r.Command) > 0:
			bad("[[notify]] %s has both url and command: keep one", label)
		case r.URL != "" && !strings.HasPrefix(r.URL, "http://") && !strings.HasPrefix(r.URL, "https://") && !strings.HasPrefix(r.URL, "${"):
			bad("[[notify]] %s: url %q must start with http:// or https://", label, r.URL)
		}
		if len(r.Headers) > 0 && r.URL == "" {
			bad("[[notify]] %s: headers go with a url", label)
		}
		p.Notify = append(p.Notify, &Notify{Name: r.Name, On: r.On, Select: r.Select, URL: r.URL, Command: r.Command,
			Headers: r.Headers, Secret: r.Secret, Line: line})
	}
}

// arrayTableLines are the lines of the [[name]] headers, in order.
func arrayTableLines(text, name string) []int {
	var out []int
	want := fmt.Sprintf("[[%s]]", name)
	for i, l := range strings.Split(text, "\n") {
		if strings.ReplaceAll(strings.TrimSpace(stripComment(l)), " ", "") == want {
			out = append(out, i+1)
		}
	}
	return out
}

// OpenLineage is [openlineage]: where the run events of every unit go.
type OpenLineage struct {
	URL       string `toml:"url"`  // POST each event; may hold ${VAR}
	File      string `toml:"file"` // or append JSON lines, relative to the project
	Namespace string `toml:"namespace"`
}

func (p *Project) parseOpenLineage(text string, o *OpenLineage, errs *diag.List) {
	if o == nil {
		return
	}
	line := keyLine(text, toml.Key{"openlineage"})
	switch {
	case o.URL == "" && o.File == "":
		errs.Add(FileName, line, 0, `[openlineage] needs url = "http://…/api/v1/lineage" or file = "target/openlineage.jsonl"`)
	case o.URL != "" && o.File != "":
		errs.Add(FileName, line, 0, "[openlineage] has both url and file: keep one")
	case o.URL != "" && !strings.HasPrefix(o.URL, "http://") && !strings.HasPrefix(o.URL, "https://") && !strings.HasPrefix(o.URL, "${"):
		errs.Add(FileName, line, 0, "[openlineage] url %q must start with http:// or https://", o.URL)
	}
	p.OpenLineage = o
}
