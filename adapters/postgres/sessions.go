package postgres

import (
	"context"
	"strings"

	"github.com/idemc/idemc/adapters"
)

// Sessions lists the backends connected with m.App as application_name.
func (e *Engine) Sessions(ctx context.Context, s adapters.Session, m adapters.SessionMatch) ([]adapters.ServerSession, error) {
	_, rows, err := s.Query(ctx, "SELECT pid, state, coalesce(left(regexp_replace(query, '\\s+', ' ', 'g'), 90), '') FROM pg_stat_activity WHERE application_name = "+
		e.d.String(m.App)+" AND pid <> pg_backend_pid()", 0)
	if err != nil {
		return nil, err
	}
	var out []adapters.ServerSession
	for _, r := range rows {
		out = append(out, adapters.ServerSession{ID: r[0], Active: r[1] == "active", InTx: strings.HasPrefix(r[1], "idle in transaction"), Query: r[2]})
	}
	return out, nil
}

// KillSession terminates a backend.
func (e *Engine) KillSession(ctx context.Context, s adapters.Session, id string) error {
	_, err := adapters.ExecSQL(ctx, s, "SELECT pg_terminate_backend("+e.d.String(id)+"::int)")
	return err
}

var _ adapters.ServerSessions = (*Engine)(nil)
