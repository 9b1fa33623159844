package mysql

import (
	"context"
	"strconv"
	"strings"

	"github.com/idemc/idemc/adapters"
)

// Sessions lists the connections from m.Ports (or, with none, running a
// statement that contains m.Text), with whether each is in an InnoDB
// transaction.
func (e *Engine) Sessions(ctx context.Context, s adapters.Session, m adapters.SessionMatch) ([]adapters.ServerSession, error) {
	_, rows, err := s.Query(ctx, "SELECT p.ID, p.HOST, p.COMMAND, coalesce(LEFT(REPLACE(p.INFO, '\\n', ' '), 90), ''), "+
		"(SELECT count(*) FROM information_schema.INNODB_TRX AS x WHERE x.trx_mysql_thread_id = p.ID) "+
		"FROM information_schema.PROCESSLIST AS p WHERE p.ID <> CONNECTION_ID()", 0)
	if err != nil {
		return nil, err
	}
	var out []adapters.ServerSession
	for _, r := range rows {
		port := 0
		if i := strings.LastIndexByte(r[1], ':'); i >= 0 {
			port, _ = strconv.Atoi(r[1][i+1:])
		}
		mine := m.Ports[port]
		if len(m.Ports) == 0 {
			mine = m.Text != "" && strings.Contains(r[3], m.Text)
		}
		if mine {
			out = append(out, adapters.ServerSession{ID: r[0], Active: r[2] == "Query", InTx: r[4] != "0", Query: r[3]})
		}
	}
	return out, nil
}

// KillSession ends a connection; one already gone ("Unknown thread") is
// no error.
func (e *Engine) KillSession(ctx context.Context, s adapters.Session, id string) error {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return err
	}
	if _, err := adapters.ExecSQL(ctx, s, "KILL CONNECTION "+strconv.FormatUint(n, 10)); err != nil && !strings.Contains(err.Error(), "Unknown thread") {
		return err
	}
	return nil
}

var _ adapters.ServerSessions = (*Engine)(nil)
