package project

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
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
		return nil, fmt.Errorf("target %q needs environment variable %s, which is not set: export %s=... (see project.toml [targets.%s])",
			t.Name, strings.Join(missing, ", "), missing[0], t.Name)
	}
	out["schema"] = t.Schema
	return out, nil
}

// Redact hides the password in a DSN (URL form or key=value form) so it can
// be printed.
func Redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return u.String()
		}
	}
	// user:pass@tcp(...) (MySQL) and password=... (libpq key=value)
	if at := strings.Index(dsn, "@"); at > 0 {
		if colon := strings.Index(dsn[:at], ":"); colon >= 0 && !strings.Contains(dsn[:at], "/") {
			return dsn[:colon+1] + "xxxxx" + dsn[at:]
		}
	}
	return passwordKV.ReplaceAllString(dsn, "${1}xxxxx")
}

var passwordKV = regexp.MustCompile(`((?i:password)\s*=\s*)('[^']*'|\S+)`)
