package runner

import (
	"context"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/httpsource"
)

// cacheTTL bounds the window a cache entry covers.
const cacheTTL = 7 * 24 * time.Hour

// recordCache is an HTTP source's optional Redis pre-filter (docs/http.md):
// for each record key, the content hash last merged and the transaction
// that merged it. A record is skipped before the sink only when the cache
// has its very hash from a transaction that the warehouse's ledger shows
// committed, so a lost, flushed or stale cache (an entry written before a
// commit that never happened) can only cost work, never lose a row.
type recordCache struct {
	c         *redis.Client
	prefix    string
	committed map[string]bool // transactions the ledger holds
	txn       string          // the current page's transaction
	err       error           // the first cache error: reported, then ignored
	skipped   int             // records the cache kept from the sink
}

// openCache connects to the source's cache URL (expanded from the
// environment; a secret in it is redacted like the others).
func openCache(ctx context.Context, src *project.HTTPSource, secrets map[string]string) (*recordCache, error) {
	u, err := expandEnv(src.Cache, "cache", src.Name, secrets)
	if err != nil {
		return nil, err
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		return nil, err
	}
	return &recordCache{c: redis.NewClient(opt), prefix: "idemc:http:" + src.Name + ":", committed: map[string]bool{}}, nil
}

func (c *recordCache) close() { _ = c.c.Close() }

func keyCol(t *seed.Table, name string) int {
	for j, col := range t.Columns {
		if col.Name == name {
			return j
		}
	}
	return -1
}

// unseen returns t without the records the cache proves merged.
func (c *recordCache) unseen(ctx context.Context, t *seed.Table) *seed.Table {
	kj, hj := keyCol(t, httpsource.KeyColumn), keyCol(t, httpsource.HashColumn)
	if len(t.Rows) == 0 || len(c.committed) == 0 {
		return t
	}
	keys := make([]string, len(t.Rows))
	for i, row := range t.Rows {
		keys[i] = c.prefix + row[kj].(string)
	}
	vals, err := c.c.MGet(ctx, keys...).Result()
	if err != nil {
		c.fail(err)
		return t
	}
	out := *t
	out.Rows = t.Rows[:0:0]
	for i, row := range t.Rows {
		if s, ok := vals[i].(string); ok {
			hash, txn, _ := strings.Cut(s, "@")
			if hash == row[hj].(string) && c.committed[txn] {
				c.skipped++
				continue
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return &out
}

// mark records t's records as merged by the current transaction, before it
// commits: until the ledger holds that transaction, the entries are not
// trusted.
func (c *recordCache) mark(ctx context.Context, t *seed.Table) {
	kj, hj := keyCol(t, httpsource.KeyColumn), keyCol(t, httpsource.HashColumn)
	pipe := c.c.Pipeline()
	for _, row := range t.Rows {
		pipe.Set(ctx, c.prefix+row[kj].(string), row[hj].(string)+"@"+c.txn, cacheTTL)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		c.fail(err)
	}
}

func (c *recordCache) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}
