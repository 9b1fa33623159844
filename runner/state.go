package runner

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
)

// dbState is the compiler.State of a target, read in three bulk queries
// before planning so that nothing is read per unit.
type dbState struct {
	relations map[adapters.Relation]bool
	succeeded map[[3]string][2]time.Time // ended, as_of
	marks     map[string]string
	attempts  map[[2]string]int64
	// failedLast: the unit's most recent attempt failed or was abandoned,
	// so its earlier success no longer counts: the next build redoes it.
	failedLast map[[2]string]bool
}

func readState(ctx context.Context, s adapters.Session, d adapters.Dialect, st adapters.State) (*dbState, error) {
	out := &dbState{relations: map[adapters.Relation]bool{}, succeeded: map[[3]string][2]time.Time{}, marks: map[string]string{}, attempts: map[[2]string]int64{}, failedLast: map[[2]string]bool{}}
	_, rows, err := s.Query(ctx, d.RelationsQuery(), 0)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.relations[adapters.Relation{Schema: strings.ToLower(r[0]), Name: strings.ToLower(r[1])}] = true
	}
	_, rows, err = s.Query(ctx, d.SucceededQuery(st), 0)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.succeeded[[3]string{r[0], r[1], r[2]}] = [2]time.Time{parseTime(r[3]), parseTime(r[4])}
	}
	_, rows, err = s.Query(ctx, d.MarksQuery(st), 0)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.marks[r[0]] = r[1]
	}
	_, rows, err = s.Query(ctx, d.AttemptsQuery(st), 0)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		n, _ := strconv.ParseInt(r[2], 10, 64)
		out.attempts[[2]string{r[0], r[1]}] = n
	}
	_, rows, err = s.Query(ctx, d.StatusQuery(st), 0)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r[2] == "failed" || r[2] == "abandoned" {
			out.failedLast[[2]string{r[0], r[1]}] = true
		}
	}
	return out, nil
}

// nextAttempt is the attempt number of a unit's next audit row.
func (s *dbState) nextAttempt(job, partition string) int64 {
	return s.attempts[[2]string{job, partition}] + 1
}

func (s *dbState) Exists(r adapters.Relation) bool {
	return s.relations[adapters.Relation{Schema: strings.ToLower(r.Schema), Name: strings.ToLower(r.Name)}]
}

func (s *dbState) LastSuccess(model, partition, hash string) (time.Time, time.Time, bool) {
	t, ok := s.succeeded[[3]string{model, partition, hash}]
	if s.failedLast[[2]string{model, partition}] {
		return time.Time{}, time.Time{}, false
	}
	return t[0], t[1], ok
}

// parseTime reads a timestamp as sessions print it (sqlgen.Text); an
// unreadable one counts as very old.
func parseTime(s string) time.Time {
	for _, l := range []string{"2006-01-02 15:04:05.999999", "2006-01-02 15:04:05.999999-07", "2006-01-02T15:04:05.999999Z07:00"} {
		if t, err := time.Parse(l, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

func (s *dbState) HighWater(model string) (string, bool) {
	m, ok := s.marks[model]
	return m, ok && m != "NULL"
}
