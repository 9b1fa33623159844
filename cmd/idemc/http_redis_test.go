package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemc/idemc/internal/httpsource/testapi"
	"github.com/idemc/idemc/internal/testtree"
)

// redisDB is the Redis database number the cache tests use: the shared
// server's others belong to other tests.
const redisDB = 13

const httpCacheToml = httpKillToml + `cache = "${IDEMC_HTTP_CACHE}"
`

// cacheURL is IDEMC_REDIS_URL on the tests' own database number, or ""
// (the test skips, or fails under IDEMC_REQUIRE_LIVE=1).
func cacheURL(t *testing.T) string {
	t.Helper()
	base := os.Getenv("IDEMC_REDIS_URL")
	if base == "" {
		if os.Getenv("IDEMC_REQUIRE_LIVE") == "1" {
			t.Fatal("IDEMC_REDIS_URL is not set and IDEMC_REQUIRE_LIVE=1: run eval \"$(scripts/services.sh)\"")
		}
		t.Skip("IDEMC_REDIS_URL is not set (eval \"$(scripts/services.sh)\" starts Redis)")
	}
	opt, err := redis.ParseURL(base)
	if err != nil {
		t.Fatal(err)
	}
	opt.DB = redisDB
	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("IDEMC_REDIS_URL: %v", err)
	}
	return strings.TrimRight(strings.SplitN(base, "?", 2)[0], "/0123456789") + fmt.Sprintf("/%d", redisDB)
}

// flushSource deletes the cache keys of source (never the whole server).
func flushSource(t *testing.T, url, source string) int {
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	ctx := context.Background()
	n := 0
	iter := c.Scan(ctx, 0, "idemc:http:"+source+":*", 1000).Iterator()
	for iter.Next(ctx) {
		c.Del(ctx, iter.Val())
		n++
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHTTPCache shows the Redis cache can only save work (issue 13): it
// keeps unchanged records of changed pages from the sink; flushed in the
// middle of a run it costs work, not rows; an entry written just before a
// commit that never happened (kill -9 between the two) is not trusted.
// Each run's table is compared with a clean run's without the cache.
func TestHTTPCache(t *testing.T) {
	url := cacheURL(t)
	t.Setenv("IDEMC_HTTP_CACHE", url)
	api := testapi.New(2000, 100)
	apiURL, stop := api.Start()
	defer stop()
	clean := func() string {
		dir := testtree.Write(t, map[string]string{"project.toml": fmt.Sprintf(httpKillToml, apiURL)})
		got, _ := ingestTable(t, dir)
		return got
	}
	flushSource(t, url, "orders_api")
	defer flushSource(t, url, "orders_api")
	dir := testtree.Write(t, map[string]string{"project.toml": fmt.Sprintf(httpCacheToml, apiURL)})
	if got, _ := ingestTable(t, dir); got != clean() {
		t.Fatal("the first run with the cache differs from a clean run")
	}
	// Record 5 moves to page 15: 15 pages change, 1,499 of their records
	// do not; the cache keeps them from the sink.
	api.Change(5, testapi.Epoch.Add(24*time.Hour))
	got, out := ingestTable(t, dir)
	if got != clean() || !strings.Contains(out, " 1 rows") || !strings.Contains(out, "cache skipped 1499 records") {
		t.Fatalf("after a change, with the cache:\n%s", out)
	}
	// Flushed after the 8th request of a run: the later pages cost work.
	api.Change(6, testapi.Epoch.Add(25*time.Hour))
	base := api.Stats().Requests
	api.OnRequest(func(n int) {
		if n-base == 8 {
			flushSource(t, url, "orders_api")
		}
	})
	got, out = ingestTable(t, dir)
	api.OnRequest(nil)
	if got != clean() || !strings.Contains(out, " 1 rows") {
		t.Fatalf("after a flush mid-run:\n%s", out)
	}
	// Killed after page 3's records were cached, before its commit: the
	// rerun must land page 3 although the cache holds its very hashes.
	fresh := testtree.Write(t, map[string]string{"project.toml": fmt.Sprintf(httpCacheToml, apiURL)})
	flushSource(t, url, "orders_api")
	c := startIdemc(t, fresh, "crash:orders_api:cache:3", "ingest")
	if code := c.wait(t, time.Minute); code != -1 {
		t.Fatalf("not killed (exit %d):\n%s%s", code, c.out.String(), c.stderr.String())
	}
	got, out = ingestTable(t, fresh)
	if got != clean() {
		t.Fatalf("a cache entry of an uncommitted page lost rows:\n%s", out)
	}
	if _, out := ingestTable(t, fresh); !strings.Contains(out, " 0 rows") {
		t.Fatalf("a third run wrote rows:\n%s", out)
	}
}
