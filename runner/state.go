package runner

import (
	"context"
	"strconv"
	"strings"

	"github.com/idemc/idemc/adapters"
)

// dbState is the compiler.State of a target, read in three bulk queries
// before planning so that nothing is read per unit.
type dbState struct {
	relations map[adapters.Relation]bool
	succeeded map[[3]string]bool
	marks     map[string]string
	attempts  map[[2]string]int64
}

func readState(ctx context.Context, s adapters.Session, d adapters.Dialect, st adapters.State) (*dbState, error) {
	out := &dbState{relations: map[adapters.Relation]bool{}, succeeded: map[[3]string]bool{}, marks: map[string]string{}, attempts: map[[2]string]int64{}}
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
		out.succeeded[[3]string{r[0], r[1], r[2]}] = true
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
	return out, nil
}

// nextAttempt is the attempt number of a unit's next audit row.
func (s *dbState) nextAttempt(job, partition string) int64 {
	return s.attempts[[2]string{job, partition}] + 1
}

func (s *dbState) Exists(r adapters.Relation) bool {
	return s.relations[adapters.Relation{Schema: strings.ToLower(r.Schema), Name: strings.ToLower(r.Name)}]
}

func (s *dbState) Succeeded(model, partition, hash string) bool {
	return s.succeeded[[3]string{model, partition, hash}]
}

func (s *dbState) HighWater(model string) (string, bool) {
	m, ok := s.marks[model]
	return m, ok && m != "NULL"
}
