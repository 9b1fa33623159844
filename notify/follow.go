package notify

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

// Follow runs a pass every interval until ctx ends: a long-running
// observer. A pass that finds the target held by a build skips its turn;
// other errors are reported and the observer goes on (an endpoint or a
// warehouse that is down must not end it).
func Follow(ctx context.Context, p *project.Project, o Options, interval time.Duration) error {
	if o.Owner == "" {
		o.Owner = NewOwner()
	}
	o.Wait = 0
	for {
		sum, err := Pass(ctx, p, o)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, adapters.ErrLocked):
			// a build has the file: try at the next tick
		case err != nil:
			report(o, "notify: %v", err)
		case sum.Created+sum.Delivered+sum.Failed > 0:
			report(o, "%s", sum)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
	}
}

func (s Summary) String() string {
	return fmt.Sprintf("notify: %d new events, %d delivered, %d failed, %d waiting", s.Created, s.Delivered, s.Failed, s.Pending)
}

// PendingEvent is an undelivered event, for idemc status --outbox.
type PendingEvent struct {
	ID        string `json:"event_id"`
	Notify    string `json:"notify"`
	Event     string `json:"event"`
	Model     string `json:"model,omitempty"`
	Partition string `json:"partition,omitempty"`
	Attempts  int64  `json:"attempts"`
	NextTry   string `json:"next_attempt_at,omitempty"`
	LastError string `json:"last_error,omitempty"`
	Created   string `json:"created_at"`
}

// Pending lists the outbox's undelivered events; none when there is no
// outbox yet.
func Pending(ctx context.Context, p *project.Project, target string) ([]PendingEvent, error) {
	eng, ad, err := runner.ConnectExisting(ctx, p, target)
	if errors.Is(err, runner.ErrNoWarehouse) {
		return nil, nil // nothing has run: no outbox
	}
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	d, ok := ad.Dialect.(outboxSQL)
	if !ok {
		return nil, nil
	}
	sess, err := eng.Session(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	st := runner.StateOf(p, target)
	if _, ok, err := sess.Relation(ctx, sqlgen.Outbox(st)); err != nil || !ok {
		return nil, err
	}
	_, rows, err := sess.Query(ctx, d.OutboxPending(st), 0)
	if err != nil {
		return nil, err
	}
	var out []PendingEvent
	for _, r := range rows {
		e := PendingEvent{ID: r[0], Notify: r[1], Event: r[2], Model: nullable(r[3]), Partition: nullable(r[4]),
			NextTry: nullable(r[7]), LastError: nullable(r[8]), Created: r[9]}
		e.Attempts, _ = strconv.ParseInt(r[6], 10, 64)
		out = append(out, e)
	}
	return out, nil
}
