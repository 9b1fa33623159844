// Package runner executes a compiled Plan on an engine: it reads the audit
// table to plan missing partitions, walks the unit graph concurrently, runs
// each unit's steps on one session inside one transaction with its checks,
// and records every unit in the audit table.
package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/project"
)

// ErrTarget marks configuration and connection errors (exit code 2:
// nothing was written).
type ErrTarget struct{ msg string }

func (e *ErrTarget) Error() string { return e.msg }

// Is makes a target error a bad-input error.
func (e *ErrTarget) Is(t error) bool {
	return t == diag.ErrBadInput || t == adapters.ErrLocked && strings.Contains(e.msg, adapters.ErrLocked.Error())
}

// Connect opens the named target (or the default), resolving ${VAR}s from
// the environment now and not before.
func Connect(ctx context.Context, p *project.Project, target string) (adapters.Engine, *adapters.Adapter, error) {
	if target == "" {
		target = p.DefaultTarget
	}
	t, ok := p.Targets[target]
	if !ok {
		return nil, nil, &ErrTarget{fmt.Sprintf("target %q is not declared in %s", target, project.FileName)}
	}
	ad, ok := adapters.Lookup(t.Engine)
	if !ok {
		return nil, nil, &ErrTarget{fmt.Sprintf("target %q: unknown engine %q; use one of %s", target, t.Engine, strings.Join(adapters.Names(), ", "))}
	}
	if ad.Open == nil {
		return nil, nil, &ErrTarget{fmt.Sprintf("target %q: engine %s is compile-only in this build (idemc compile works; running needs its client)", target, t.Engine)}
	}
	settings, err := t.Resolve(os.LookupEnv)
	if err != nil {
		return nil, nil, &ErrTarget{err.Error()}
	}
	// Relative paths are relative to the project folder.
	if path, ok := settings["path"]; ok && path != "" && path != ":memory:" && !filepath.IsAbs(path) {
		settings["path"] = filepath.Join(p.Root, path)
	}
	e, err := ad.Open(ctx, settings)
	if err != nil {
		msg := redact(err.Error(), settings)
		if errors.Is(err, adapters.ErrLocked) {
			return nil, nil, &ErrTarget{fmt.Sprintf("target %q is %s: %s", target, adapters.ErrLocked, msg)}
		}
		return nil, nil, &ErrTarget{fmt.Sprintf("target %q (%s) is unreachable: %s; check the target's settings in %s", target, t.Engine, msg, project.FileName)}
	}
	return e, ad, nil
}

// redact removes secrets from a message: the password, token and key
// path settings, the password of the DSN, and every fragment of them a
// driver may quote after cutting a malformed DSN at '@', ':' or a space.
func redact(msg string, settings map[string]string) string {
	msg = strings.ReplaceAll(msg, settings["dsn"], project.Redact(settings["dsn"]))
	for _, secret := range secretsOf(settings) {
		msg = strings.ReplaceAll(msg, secret, "xxxxx")
	}
	return msg
}

// secretsOf lists the secret strings of a target's settings, longest first,
// with their fragments of four characters or more.
func secretsOf(settings map[string]string) []string {
	var whole []string
	for _, k := range []string{"password", "token", "private_key_path"} {
		if v := settings[k]; v != "" {
			whole = append(whole, v)
		}
	}
	if pw := dsnPassword(settings["dsn"]); pw != "" {
		whole = append(whole, pw)
	}
	seen := map[string]bool{}
	var out []string
	for _, w := range whole {
		parts := strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune("@:/?&= '\"", r) })
		for _, p := range append([]string{w}, parts...) {
			if len(p) >= 4 && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// dsnPassword finds the password in a URL DSN (user:pass@host, taking the
// last '@' of the authority, so a password holding '@' is found whole), a
// key=value DSN (password=… up to the next key) or a MySQL DSN
// (user:pass@tcp(…)).
func dsnPassword(dsn string) string {
	if dsn == "" {
		return ""
	}
	if i := strings.Index(dsn, "://"); i >= 0 {
		// password=… in the query: everything after it may be the secret
		// (an '&' inside it ends the parameter for the parser).
		if q := strings.IndexByte(dsn, '?'); q >= 0 {
			if k := strings.Index(strings.ToLower(dsn[q:]), "password="); k >= 0 {
				return dsn[q+k+len("password="):]
			}
		}
		auth := dsn[i+3:]
		if j := strings.IndexAny(auth, "/?"); j >= 0 && strings.LastIndexByte(auth[:j], '@') >= 0 {
			auth = auth[:j]
		}
		at := strings.LastIndexByte(auth, '@')
		if at < 0 {
			return ""
		}
		if _, pw, ok := strings.Cut(auth[:at], ":"); ok {
			return pw
		}
		return ""
	}
	if m := kvPassword.FindStringSubmatch(dsn); m != nil {
		return strings.Trim(m[1], "'")
	}
	if at := strings.LastIndex(dsn, "@tcp("); at >= 0 {
		if _, pw, ok := strings.Cut(dsn[:at], ":"); ok {
			return pw
		}
	}
	if at := strings.LastIndexByte(dsn, '@'); at >= 0 {
		if _, pw, ok := strings.Cut(dsn[:at], ":"); ok {
			return pw
		}
	}
	return ""
}

// kvPassword matches password=… in a key=value DSN, up to the next key.
var kvPassword = regexp.MustCompile(`(?i)password\s*=\s*('(?:[^'\\]|\\.|'')*'|.*?)(?:\s+\w+\s*=|$)`)
