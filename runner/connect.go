// Package runner executes a compiled Plan on an engine: it reads the audit
// table to plan missing partitions, walks the unit graph concurrently, runs
// each unit's steps on one session inside one transaction with its checks,
// and records every unit in the audit table.
package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// resolveTarget finds the named target's adapter and resolves its
// settings (${VAR}s from the environment; a relative path is relative to
// the project folder).
func resolveTarget(p *project.Project, target string) (*adapters.Adapter, map[string]string, error) {
	if target == "" {
		target = p.DefaultTarget
	}
	t, ok := p.Targets[target]
	if !ok {
		return nil, nil, &ErrTarget{fmt.Sprintf("target %q is not declared in %s", target, cmp.Or(p.TargetsFile, project.FileName))}
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
	return ad, settings, nil
}

// ErrNoWarehouse: the target's warehouse does not exist yet (a DuckDB
// file never written), so nothing has been built there.
var ErrNoWarehouse = errors.New("the target's warehouse does not exist yet")

// ConnectExisting is Connect for a command that only reads: it returns
// ErrNoWarehouse, and creates nothing, when the warehouse is missing.
func ConnectExisting(ctx context.Context, p *project.Project, target string) (adapters.Engine, *adapters.Adapter, error) {
	ad, settings, err := resolveTarget(p, target)
	if err != nil {
		return nil, nil, err
	}
	if ad.Missing != nil && ad.Missing(settings) {
		return nil, nil, ErrNoWarehouse
	}
	return openResolved(ctx, p, target, ad, settings)
}

// Connect opens the named target (or the default), resolving ${VAR}s from
// the environment now and not before.
func Connect(ctx context.Context, p *project.Project, target string) (adapters.Engine, *adapters.Adapter, error) {
	ad, settings, err := resolveTarget(p, target)
	if err != nil {
		return nil, nil, err
	}
	return openResolved(ctx, p, target, ad, settings)
}

// openResolved opens a target whose settings resolveTarget resolved.
func openResolved(ctx context.Context, p *project.Project, target string, ad *adapters.Adapter, settings map[string]string) (adapters.Engine, *adapters.Adapter, error) {
	if target == "" {
		target = p.DefaultTarget
	}
	t := p.Targets[target]
	e, err := ad.Open(ctx, settings)
	if err != nil {
		msg := redact(err.Error(), settings, ad)
		if errors.Is(err, adapters.ErrLocked) {
			return nil, nil, &ErrTarget{fmt.Sprintf("target %q is %s: %s", target, adapters.ErrLocked, msg)}
		}
		return nil, nil, &ErrTarget{fmt.Sprintf("target %q (%s) is unreachable: %s; check the target's settings in %s", target, t.Engine, msg, project.FileName)}
	}
	return e, ad, nil
}

// redact removes a target's secrets from a message: the password, token
// and key path settings and what the engine's client finds secret in them
// (Adapter.Secrets: the DSN's password through the client's own parser),
// with every fragment of them a driver may quote after cutting a malformed
// DSN at '@', ':' or a space.
func redact(msg string, settings map[string]string, ad *adapters.Adapter) string {
	for _, secret := range secretsOf(settings, ad) {
		msg = strings.ReplaceAll(msg, secret, "xxxxx")
	}
	return msg
}

// secretsOf lists the secret strings of a target's settings, longest first,
// with their fragments of four characters or more.
func secretsOf(settings map[string]string, ad *adapters.Adapter) []string {
	var whole []string
	for _, k := range []string{"password", "token", "private_key_path"} {
		if v := settings[k]; v != "" {
			whole = append(whole, v)
		}
	}
	if ad != nil && ad.Secrets != nil {
		whole = append(whole, ad.Secrets(settings)...)
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
