package runner

import (
	"context"
	"strings"

	"github.com/idemc/idemc/adapters"
)

// dbState is the compiler.State of a target, read in three bulk queries
// before planning so that nothing is read per unit.
type dbState struct {
	relations map[adapters.Relation]bool
	succeeded map[[3]string]bool
	marks     map[string]string
}

func readState(ctx context.Context, s adapters.Session, d adapters.Dialect, st adapters.State) (*dbState, error) {
	out := &dbState{relations: map[adapters.Relation]bool{}, succeeded: map[[3]string]bool{}, marks: map[string]string{}}
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
	return out, nil
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
