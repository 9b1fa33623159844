package notify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// Options of one observer.
type Options struct {
	Compile compiler.Options // the target, and the project's selection context
	Out     io.Writer        // one line per delivery and a summary
	// Owner names this observer in the outbox's leases; "" picks a random one.
	Owner string
	// Wait is how long a pass waits for a build that holds the DuckDB file
	// (one writing process) before it gives up.
	Wait   time.Duration
	Client *http.Client
	// Lease and RetryBase override leaseFor and the backoff's first wait
	// (tests).
	Lease, RetryBase time.Duration
}

// Summary is what one pass did.
type Summary struct {
	Created, Delivered, Failed, Pending int
}

// leaseFor is how long a claimed event is this observer's: longer than a
// delivery may take (deliverTimeout), so two observers never send it at once.
const leaseFor = 2 * time.Minute

// outboxSQL is what notify needs of a dialect: sqlgen.Gen has it.
type outboxSQL interface {
	adapters.Literals
	OutboxDDL(s plan.State) []string
	OutboxInsert(s plan.State, evs []sqlgen.OutboxEvent) string
	OutboxIDs(s plan.State) string
	OutboxPending(s plan.State) string
	OutboxClaim(s plan.State, id, owner string, now, until time.Time) string
	OutboxDelivered(s plan.State, id, owner string, now time.Time) string
	OutboxFailed(s plan.State, id, owner, msg string, next time.Time) string
}

// engines are those whose outbox statements are tested live.
var engines = []string{"duckdb", "postgres", "mysql"}

// Pass derives the new events and delivers every due one, once.
func Pass(ctx context.Context, p *project.Project, o Options) (Summary, error) {
	var sum Summary
	if len(p.Notify) == 0 {
		return sum, diag.List{diag.Errorf(project.FileName, 0, 0, `no [[notify]] is declared: add one (name, on, url or command), see docs/notify.md`)}
	}
	chosen, err := selections(p, o.Compile)
	if err != nil {
		return sum, err
	}
	eng, ad, err := connect(ctx, p, o)
	if err != nil {
		return sum, err
	}
	defer eng.Close()
	d, ok := ad.Dialect.(outboxSQL)
	if !ok || !slices.Contains(engines, ad.Dialect.Name()) {
		return sum, fmt.Errorf("idemc notify works on %s targets today, not %s", strings.Join(engines, ", "), ad.Dialect.Name())
	}
	sess, err := eng.Session(ctx)
	if err != nil {
		return sum, err
	}
	defer sess.Close()
	st := runner.StateOf(p, o.Compile.Target)
	if _, ok, err := sess.Relation(ctx, st.Audit); err != nil || !ok {
		return sum, err // nothing has run yet: no event
	}
	for _, q := range d.OutboxDDL(st) {
		if _, err := adapters.ExecSQL(ctx, sess, q); err != nil {
			// Two observers creating it at once: PostgreSQL's IF NOT
			// EXISTS can still collide; the table is there either way.
			if _, ok, rerr := sess.Relation(ctx, sqlgen.Outbox(st)); rerr != nil || !ok {
				return sum, fmt.Errorf("notify: creating the outbox: %w", err)
			}
		}
	}
	if sum.Created, err = deriveNew(ctx, sess, d, st, p, chosen); err != nil {
		return sum, err
	}
	err = deliverDue(ctx, sess, d, st, p, o, &sum)
	return sum, err
}

// connect opens the target, waiting while a build holds a DuckDB file:
// the observer opens it between builds.
func connect(ctx context.Context, p *project.Project, o Options) (adapters.Engine, *adapters.Adapter, error) {
	deadline := time.Now().Add(o.Wait)
	said := false
	for {
		eng, ad, err := runner.Connect(ctx, p, o.Compile.Target)
		if err == nil || !errors.Is(err, adapters.ErrLocked) || time.Now().After(deadline) {
			return eng, ad, err
		}
		if !said && o.Out != nil {
			fmt.Fprintln(o.Out, "waiting: a build holds the target; notify runs when it ends")
			said = true
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// selections are the models each [[notify]] is for.
func selections(p *project.Project, base compiler.Options) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for _, n := range p.Notify {
		o := base
		o.Select, o.Exclude = nil, nil
		if n.Select != "" {
			o.Select = strings.Fields(n.Select)
		}
		o.NoUnits, o.LintOnly, o.Models = true, true, false
		pl, err := compiler.Compile(p, o)
		if err != nil {
			return nil, fmt.Errorf("[[notify]] %s: select = %q: %w", n.Name, n.Select, err)
		}
		set := map[string]bool{}
		for _, m := range pl.Selected {
			set[m] = true
		}
		out[n.Name] = set
	}
	return out, nil
}

// deriveNew inserts the events not in the outbox yet and counts them.
func deriveNew(ctx context.Context, sess adapters.Session, d outboxSQL, st plan.State, p *project.Project, chosen map[string]map[string]bool) (int, error) {
	units, err := readUnits(ctx, sess, d, st)
	if err != nil {
		return 0, err
	}
	runs, err := readRuns(ctx, sess, d, st)
	if err != nil {
		return 0, err
	}
	_, idRows, err := sess.Query(ctx, d.OutboxIDs(st), 0)
	if err != nil {
		return 0, err
	}
	have := map[string]bool{}
	for _, r := range idRows {
		have[r[0]] = true
	}
	var fresh []sqlgen.OutboxEvent
	now := time.Now().UTC()
	for _, n := range p.Notify {
		for _, e := range derive(n, p.Name, units, runs, chosen[n.Name], now) {
			if !have[e.ID] {
				have[e.ID] = true
				fresh = append(fresh, e)
			}
		}
	}
	for i := 0; i < len(fresh); i += 200 {
		batch := fresh[i:min(i+200, len(fresh))]
		if _, err := adapters.ExecSQL(ctx, sess, d.OutboxInsert(st, batch)); err != nil {
			return 0, fmt.Errorf("notify: adding events to the outbox: %w", err)
		}
	}
	return len(fresh), nil
}

func readUnits(ctx context.Context, sess adapters.Session, d outboxSQL, st plan.State) ([]unitRow, error) {
	if sqlgen.HasLatest(d) {
		// idemc_latest, once a run with work made it; the audit table before.
		if _, ok, err := sess.Relation(ctx, st.Latest); err != nil || !ok {
			st.Latest = plan.Relation{}
		}
	}
	_, rows, err := sess.Query(ctx, sqlgen.NotifySourceQuery(d, st), 0)
	if err != nil {
		return nil, fmt.Errorf("notify: reading the audit table: %w", err)
	}
	var out []unitRow
	for _, r := range rows {
		u := unitRow{Model: r[0], Partition: r[1], Status: r[2], RunID: r[4], Inputs: r[6], Error: nullable(r[8])}
		u.Rows, _ = strconv.ParseInt(r[3], 10, 64)
		u.Attempt, _ = strconv.ParseInt(r[5], 10, 64)
		if r[7] != "NULL" && r[7] != "" {
			_ = json.Unmarshal([]byte(r[7]), &u.Checks)
		}
		out = append(out, u)
	}
	return out, nil
}

func readRuns(ctx context.Context, sess adapters.Session, d outboxSQL, st plan.State) ([]runRow, error) {
	if _, ok, err := sess.Relation(ctx, st.Runs); err != nil || !ok {
		return nil, err
	}
	_, rows, err := sess.Query(ctx, sqlgen.NotifyRunsQuery(d, st), 0)
	if err != nil {
		return nil, fmt.Errorf("notify: reading idemc_runs: %w", err)
	}
	var out []runRow
	for _, r := range rows {
		rr := runRow{RunID: r[0], Command: r[1], Target: r[2], AsOf: r[3], Outcome: r[4]}
		rr.Succeeded, _ = strconv.ParseInt(r[5], 10, 64)
		rr.Failed, _ = strconv.ParseInt(r[6], 10, 64)
		rr.Skipped, _ = strconv.ParseInt(r[7], 10, 64)
		out = append(out, rr)
	}
	return out, nil
}

func nullable(s string) string {
	if s == "NULL" {
		return ""
	}
	return s
}

// NewOwner is a random lease owner id.
func NewOwner() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "notify-" + hex.EncodeToString(b[:])
}
