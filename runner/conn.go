package runner

import (
	"context"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// conn is a target's engine with one pinned session: what status, test and
// verify open before they read (a run keeps its engine and pins a session
// per unit).
type conn struct {
	eng  adapters.Engine
	ad   *adapters.Adapter
	sess adapters.Session
}

// openConn connects to target and pins one session; Close releases both.
func openConn(ctx context.Context, p *project.Project, target string) (*conn, error) {
	eng, ad, err := Connect(ctx, p, target)
	if err != nil {
		return nil, err
	}
	return pinned(ctx, eng, ad)
}

// openExisting is openConn for a command that only reads: ErrNoWarehouse
// when the target's warehouse does not exist (nothing is created).
func openExisting(ctx context.Context, p *project.Project, target string) (*conn, error) {
	eng, ad, err := ConnectExisting(ctx, p, target)
	if err != nil {
		return nil, err
	}
	return pinned(ctx, eng, ad)
}

func pinned(ctx context.Context, eng adapters.Engine, ad *adapters.Adapter) (*conn, error) {
	sess, err := eng.Session(ctx)
	if err != nil {
		eng.Close()
		return nil, err
	}
	return &conn{eng: eng, ad: ad, sess: sess}, nil
}

// Close closes the session, then the engine.
func (c *conn) Close() {
	c.sess.Close()
	c.eng.Close()
}

// StateOf is stateOf, for the commands beside the runner (notify).
func StateOf(p *project.Project, target string) plan.State { return stateOf(p, target) }

// stateOf is where target keeps its audit and state tables: its
// state_schema, else its schema ("" target: the project's default).
func stateOf(p *project.Project, target string) plan.State {
	if target == "" {
		target = p.DefaultTarget
	}
	t := p.Targets[target]
	if t.StateSchema != "" {
		return plan.StateIn(t.StateSchema)
	}
	return plan.StateIn(t.Schema)
}
