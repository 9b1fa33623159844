package project

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/idemc/idemc/compiler/diag"
)

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Resolve returns the target's settings with every ${VAR} replaced from
// lookup. It is called only when a connection is opened, so compiling needs no
// credentials. An unset variable is an error naming it and the target.
func (t *Target) Resolve(lookup func(string) (string, bool)) (map[string]string, error) {
	out := make(map[string]string, len(t.Settings)+2)
	var missing []string
	for k, v := range t.Settings {
		var m []string
		out[k], m = ExpandVars(v, lookup)
		missing = append(missing, m...)
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		missing = slices.Compact(missing)
		verb := "needs environment variable " + missing[0] + ", which is not set"
		if len(missing) > 1 {
			verb = "needs environment variables " + strings.Join(missing, ", ") + ", which are not set"
		}
		return nil, fmt.Errorf("target %q %s: export %s=... before running (see [targets.%s] in %s; idemc compile needs no credentials)",
			t.Name, verb, missing[0], t.Name, FileName)
	}
	out["schema"] = t.Schema
	return out, nil
}

// expandSchema replaces each ${VAR} in a schema name from the environment.
// Unlike the other settings a schema is needed to compile (it is in the
// compiled SQL and the plan), so it is read when the project is loaded; an
// unset or empty variable is an error at the schema's line. Any other "$"
// stays literal.
func expandSchema(v, what string, line int) (string, *diag.Error) {
	out, m := ExpandVars(v, SetAndNotEmpty)
	missing := ""
	if len(m) > 0 {
		missing = m[0]
	}
	if missing != "" {
		return v, diag.Errorf(FileName, line, 0, "%s needs environment variable %s, which is not set: export %s=... or write the schema literally", what, missing, missing)
	}
	return out, nil
}

// ExpandVars replaces every ${VAR} in s by lookup's value, and lists the
// names lookup has no value for (sorted, once each; they expand to ""). Any
// other "$" stays literal. Every ${VAR} of idemc (targets, schemas, HTTP
// sources, notify) is read through it.
func ExpandVars(s string, lookup func(string) (string, bool)) (string, []string) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[2 : len(ref)-1]
		val, ok := lookup(name)
		if !ok {
			missing = append(missing, name)
		}
		return val
	})
	sort.Strings(missing)
	return out, slices.Compact(missing)
}

// SetAndNotEmpty is os.LookupEnv counting an empty variable as unset:
// for values (a schema, a URL) that cannot be empty.
func SetAndNotEmpty(name string) (string, bool) {
	v := os.Getenv(name)
	return v, v != ""
}
