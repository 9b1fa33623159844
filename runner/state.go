package runner

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
)

// dbState is the compiler.State of a target, read in a few bulk queries
// before planning so that nothing is read per unit: the catalog (which
// relations exist), every unit's latest audit row and attempt number, and
// the high-water marks.
type dbState struct {
	relations map[adapters.Relation]bool
	// defaultSchema is where relations without a schema live, so that a
	// target without `schema` finds its own tables.
	defaultSchema string
	latest        map[[2]string]compiler.Attempt
	keys          map[string][]string
	marks         map[string]string
	attempts      map[[2]string]int64
}

func readState(ctx context.Context, s adapters.Session, d adapters.Dialect, st adapters.State) (*dbState, error) {
	out := &dbState{relations: map[adapters.Relation]bool{}, latest: map[[2]string]compiler.Attempt{}, keys: map[string][]string{}, marks: map[string]string{}, attempts: map[[2]string]int64{}}
	if q := d.DefaultSchemaQuery(); q != "" {
		_, rows, err := s.Query(ctx, q, 0)
		if err != nil {
			return nil, err
		}
		if len(rows) == 1 && rows[0][0] != "NULL" {
			out.defaultSchema = strings.ToLower(rows[0][0])
		}
	}
	_, rows, err := s.Query(ctx, d.RelationsQuery(), 0)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.relations[adapters.Relation{Schema: strings.ToLower(r[0]), Name: strings.ToLower(r[1])}] = true
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
		out.latest[[2]string{r[0], r[1]}] = compiler.Attempt{RunID: r[7], Status: r[2], Inputs: nullable(r[10]), DataVersion: nullable(r[11])}
		if r[1] != "" {
			out.keys[r[0]] = append(out.keys[r[0]], r[1])
		}
	}
	return out, nil
}

func nullable(s string) string {
	if s == "NULL" {
		return ""
	}
	return s
}

// nextAttempt is the attempt number of a unit's next audit row.
func (s *dbState) nextAttempt(job, partition string) int64 {
	return s.attempts[[2]string{job, partition}] + 1
}

func (s *dbState) Exists(r adapters.Relation) bool {
	schema := strings.ToLower(r.Schema)
	if schema == "" {
		schema = s.defaultSchema
	}
	return s.relations[adapters.Relation{Schema: schema, Name: strings.ToLower(r.Name)}]
}

func (s *dbState) Latest(model, partition string) (compiler.Attempt, bool) {
	a, ok := s.latest[[2]string{model, partition}]
	return a, ok
}

func (s *dbState) Keys(model string) []string { return s.keys[model] }

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
