package notify

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// backoff is the wait before the next try after attempts failed ones:
// base (5 s) doubling, at most an hour. A failing endpoint never loses its event.
func backoff(attempts int64, base time.Duration) time.Duration {
	d := base
	for i := int64(1); i < attempts && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// deliverDue claims each due event, sends it and marks it delivered (or
// failed, with its next try), each mark in a statement of its own.
func deliverDue(ctx context.Context, sess adapters.Session, d outboxSQL, st plan.State, p *project.Project, o Options, sum *Summary) error {
	_, rows, err := sess.Query(ctx, d.OutboxPending(st), 0)
	if err != nil {
		return fmt.Errorf("notify: reading the outbox: %w", err)
	}
	byName := map[string]*project.Notify{}
	for _, n := range p.Notify {
		byName[n.Name] = n
	}
	client := o.Client
	if client == nil {
		client = &http.Client{}
	}
	owner := o.Owner
	if owner == "" {
		owner = NewOwner()
	}
	for _, r := range rows {
		id, name, body := r[0], r[1], r[5]
		n := byName[name]
		if n == nil {
			continue // its [[notify]] was removed: left pending, listed by status --outbox
		}
		now := time.Now().UTC()
		claimed, err := adapters.ExecSQL(ctx, sess, d.OutboxClaim(st, id, owner, now, now.Add(cmp.Or(o.Lease, leaseFor))))
		if err != nil {
			return fmt.Errorf("notify: claiming event %s: %w", id, err)
		}
		if claimed != 1 {
			sum.Pending++ // another observer has it, or its retry is not due
			continue
		}
		attempts, _ := strconv.ParseInt(r[6], 10, 64)
		derr := deliver(ctx, client, n, id, body, now)
		if ctx.Err() != nil {
			return ctx.Err() // the lease runs out; the next pass sends it again, same id
		}
		if derr != nil {
			sum.Failed++
			next := time.Now().UTC().Add(backoff(attempts+1, cmp.Or(o.RetryBase, 5*time.Second)))
			if _, err := adapters.ExecSQL(ctx, sess, d.OutboxFailed(st, id, owner, derr.Error(), next)); err != nil {
				return err
			}
			report(o, "failed   %s %s: %v (next try after %s)", name, id, derr, next.Format(time.RFC3339))
			continue
		}
		if _, err := adapters.ExecSQL(ctx, sess, d.OutboxDelivered(st, id, owner, time.Now().UTC())); err != nil {
			return fmt.Errorf("notify: marking event %s delivered: %w", id, err)
		}
		sum.Delivered++
		report(o, "delivered %s %s", name, id)
	}
	return nil
}

func report(o Options, format string, a ...any) {
	if o.Out != nil {
		fmt.Fprintf(o.Out, format+"\n", a...)
	}
}
