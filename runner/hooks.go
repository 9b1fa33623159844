package runner

import (
	"context"
	"errors"

	"github.com/idemc/idemc/plan"
)

// StepHook is called after every step of a unit that succeeded (and after
// verify's snapshot and scratch phases, as unit "verify"); an error fails
// the step as if the engine had returned it. The fault-injection trials set
// one (internal/faultinject): the runner itself injects nothing.
type StepHook func(ctx context.Context, unit string, p plan.Purpose) error

// ErrConflict, wrapped in a StepHook's error, is retried like the engine's
// deadlock or serialization failure.
var ErrConflict = errors.New("conflict with a concurrent transaction")

// after runs the hook, if any.
func (h StepHook) after(ctx context.Context, unit string, p plan.Purpose) error {
	if h == nil {
		return nil
	}
	return h(ctx, unit, p)
}
