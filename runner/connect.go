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

// redact removes secret settings from a message.
func redact(msg string, settings map[string]string) string {
	for _, k := range []string{"password", "token", "dsn", "private_key_path"} {
		v := settings[k]
		if v == "" {
			continue
		}
		if k == "dsn" {
			msg = strings.ReplaceAll(msg, v, project.Redact(v))
			continue
		}
		msg = strings.ReplaceAll(msg, v, "xxxxx")
	}
	return msg
}
