package runner

import (
	"math/rand/v2"
	"time"

	"github.com/idemc/idemc/adapters"
)

// backoff paces the retries of a unit's transaction after conflicts. An
// engine whose conflicts last (BigQuery cancels a script that conflicts
// with another transaction on the same table) declares a budget with
// RetryBackoff: waits double from its first one, up to maxRetryWait, each
// drawn from the upper half of its step (jitter: units that conflicted
// together do not retry together), until the budget is spent. The others
// keep maxTxAttempts attempts with short waits (a deadlock's loser can go
// again at once).
type backoff struct {
	budget, first time.Duration
	start         time.Time
	jitter        func(time.Duration) time.Duration
}

// maxRetryWait caps one wait of a budgeted backoff.
const maxRetryWait = 8 * time.Second

func newBackoff(e adapters.Engine) *backoff {
	b := &backoff{start: time.Now(), jitter: func(d time.Duration) time.Duration { return d/2 + rand.N(d/2+1) }}
	if p, ok := e.(retryBackoffer); ok {
		b.budget, b.first = p.RetryBackoff()
	}
	return b
}

// retryBackoffer is an engine that declares a budget for retrying conflicts.
type retryBackoffer interface {
	RetryBackoff() (budget, first time.Duration)
}

// firstWait is the engine's first wait before a retry, 0 when it declares
// no RetryBackoff.
func firstWait(e adapters.Engine) time.Duration {
	if p, ok := e.(retryBackoffer); ok {
		_, first := p.RetryBackoff()
		return first
	}
	return 0
}

// next is the wait before attempt+1 after attempt failed on a conflict,
// and false when there is no retry left.
func (b *backoff) next(attempt int, now time.Time) (time.Duration, bool) {
	if b.budget <= 0 {
		return time.Duration(attempt*attempt) * 50 * time.Millisecond, attempt < maxTxAttempts
	}
	step := b.first
	for i := 1; i < attempt && step < maxRetryWait; i++ {
		step *= 2
	}
	wait := b.jitter(min(step, maxRetryWait))
	return wait, now.Add(wait).Sub(b.start) <= b.budget
}
