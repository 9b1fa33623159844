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
		out[k] = envRef.ReplaceAllStringFunc(v, func(ref string) string {
			name := ref[2 : len(ref)-1]
			val, ok := lookup(name)
			if !ok {
				missing = append(missing, name)
			}
			return val
		})
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
	var missing string
	out := envRef.ReplaceAllStringFunc(v, func(ref string) string {
		name := ref[2 : len(ref)-1]
		val := os.Getenv(name)
		if val == "" && missing == "" {
			missing = name
		}
		return val
	})
	if missing != "" {
		return v, diag.Errorf(FileName, line, 0, "%s needs environment variable %s, which is not set: export %s=... or write the schema literally", what, missing, missing)
	}
	return out, nil
}

// Redact hides the password in a DSN so it can be printed: URL form
// (postgres://user:pass@host/db, ?password=…), Go MySQL form
// (user:pass@tcp(host:3306)/db) and key=value form (host=h password=…).
// When in doubt it hides more.
func Redact(dsn string) string {
	out := dsn
	if i := strings.Index(out, "://"); i > 0 && isScheme(out[:i]) {
		// scheme://user:pass@host/…: the user info ends at the last '@'
		// before the path, but a password may hold '/', '@' or '?', so use
		// the last '@' anywhere (as net/url would fail to).
		rest := out[i+3:]
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if colon := strings.IndexByte(rest[:at], ':'); colon >= 0 {
				out = out[:i+3] + rest[:colon+1] + "xxxxx" + rest[at:]
			}
		}
	} else if slash := strings.LastIndexByte(out, '/'); slash > 0 {
		// [user[:pass]@][proto[(addr)]]/db, parsed as the MySQL driver does:
		// the last '/' ends the address, the last '@' before it ends the
		// user info.
		if at := strings.LastIndexByte(out[:slash], '@'); at > 0 {
			if colon := strings.IndexByte(out[:at], ':'); colon >= 0 && !strings.ContainsAny(out[:colon], " =") {
				out = out[:colon+1] + "xxxxx" + out[at:]
			}
		}
	}
	return passwordKV.ReplaceAllString(out, "${1}xxxxx")
}

func isScheme(s string) bool {
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// passwordKV matches password=… in key=value DSNs and URL queries: a quoted
// value (with \' escapes) or everything up to a space, '&' or ';'.
var passwordKV = regexp.MustCompile(`((?i:password|passwd|pwd)\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&;]*)`)
