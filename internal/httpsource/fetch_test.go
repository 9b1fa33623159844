package httpsource_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/internal/httpsource"
	"github.com/idemc/idemc/internal/httpsource/testapi"
)

var styles = map[string]httpsource.Paging{
	"link":   {Style: "link"},
	"json":   {Style: "json", Path: "links.next"},
	"cursor": {Style: "cursor", Path: "meta.next_cursor", Param: "cursor"},
	"page":   {Style: "page", Param: "page"},
	"none":   {Style: "none"},
}

// ledger is an in-memory idemc_http.
type ledger map[string]httpsource.Entry

func (l ledger) prev(k string) (httpsource.Entry, bool) { e, ok := l[k]; return e, ok }

func fetch(t *testing.T, o httpsource.Options, l ledger) (httpsource.Stats, int, error) {
	t.Helper()
	o.Prev = l.prev
	o.Sleep = func(context.Context, time.Duration) error { return nil }
	written := 0
	st, err := httpsource.Fetch(context.Background(), o, func(p *httpsource.Page) error {
		if !p.Unchanged {
			written += len(p.Records)
		}
		l[p.Key] = p.Entry
		return nil
	})
	return st, written, err
}

func TestFetchEveryStyleThenConditional(t *testing.T) {
	for name, pg := range styles {
		t.Run(name, func(t *testing.T) {
			api := testapi.New(95, 10)
			url, stop := api.Start()
			defer stop()
			l := ledger{}
			o := httpsource.Options{URL: url + "/" + name + "/orders", Records: "data", Paging: pg}
			st, n, err := fetch(t, o, l)
			if err != nil {
				t.Fatal(err)
			}
			wantPages := 10
			if name == "none" {
				wantPages = 1
			}
			if name == "page" {
				wantPages = 11 // the empty page ends it
			}
			if n != 95 || st.Pages != wantPages || st.Conditional != 0 {
				t.Fatalf("first fetch: %d records, %+v; want 95 records in %d pages", n, st, wantPages)
			}
			st, n, err = fetch(t, o, l)
			if err != nil {
				t.Fatal(err)
			}
			cond := wantPages
			if name == "link" {
				cond-- // the last page is fetched whole: a new page shows only in its Link header
			}
			if n != 0 || st.NotModified != cond || st.Requests != wantPages || st.Conditional != cond {
				t.Fatalf("rerun: %d records written, %+v; want 0 and %d 304s", n, st, cond)
			}
			// Record 42 moves from page 5 to page 6 (updated_at order):
			// only those two pages are written again.
			api.Change(42, testapi.Epoch.Add(55*time.Minute+30*time.Second))
			_, n, err = fetch(t, o, l)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]int{"none": 95}[name]; want == 0 && n != 20 || want != 0 && n != want {
				t.Fatalf("after a change: %d records in changed pages", n)
			}
			// A record added at the end (on a new page for every style
			// but none) is found: the body, the cursor or the Link header
			// of the last known page changed.
			api.Add(map[string]any{"id": 1000, "updated_at": "2027-01-01T00:00:00Z"})
			api.Add(map[string]any{"id": 1001, "updated_at": "2027-01-01T00:00:01Z"})
			api.Add(map[string]any{"id": 1002, "updated_at": "2027-01-01T00:00:02Z"})
			api.Add(map[string]any{"id": 1003, "updated_at": "2027-01-01T00:00:03Z"})
			api.Add(map[string]any{"id": 1004, "updated_at": "2027-01-01T00:00:04Z"})
			api.Add(map[string]any{"id": 1005, "updated_at": "2027-01-01T00:00:05Z"})
			_, n, err = fetch(t, o, l)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]int{"none": 101}[name]; want == 0 && n != 11 || want != 0 && n != want {
				t.Fatalf("after 6 new records: %d records in changed pages, want the last page's 5 and the new page's 6", n)
			}
		})
	}
}

func TestFetchFaults(t *testing.T) {
	cases := []struct {
		name    string
		fault   func(a *testapi.API)
		opts    func(o *httpsource.Options)
		wantErr string
		retries int
	}{
		{name: "429 honours Retry-After", fault: func(a *testapi.API) { a.Fail(429, 2, 2, "1") }, retries: 2},
		{name: "503 then success", fault: func(a *testapi.API) { a.Fail(503, 1, 0, "") }, retries: 1},
		{name: "500s retried then fail", fault: func(a *testapi.API) { a.Fail(500, 10, 3, "") }, wantErr: "500 Internal Server Error, after 6 attempts"},
		{name: "404 fails at once", fault: func(a *testapi.API) { a.Fail(404, 1, 2, "") }, wantErr: "404 Not Found (a client error is not retried"},
		{name: "malformed page", fault: func(a *testapi.API) { a.Malform(2, 1) }, wantErr: "page=2: the body is not JSON"},
		{name: "slow response times out and retries", fault: func(a *testapi.API) { a.Slow(300*time.Millisecond, 1) },
			opts: func(o *httpsource.Options) { o.Timeout = 100 * time.Millisecond }, retries: 1},
		{name: "max_pages", opts: func(o *httpsource.Options) { o.MaxPages = 3 }, wantErr: "more than 3 pages (max_pages)"},
		{name: "max requests", opts: func(o *httpsource.Options) { o.MaxRequests = 4 }, wantErr: "4 requests sent (--max-requests)"},
		{name: "unauthorized names no secret", fault: func(a *testapi.API) { a.Token = "right" },
			opts: func(o *httpsource.Options) {
				o.Headers = map[string]string{"Authorization": "Bearer s3cret-token"}
				o.URL += "?key=s3cret-token"
				o.Secrets = map[string]string{"TOKEN": "s3cret-token"}
			}, wantErr: "GET http://127.0.0.1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			api := testapi.New(50, 10)
			if c.fault != nil {
				c.fault(api)
			}
			url, stop := api.Start()
			defer stop()
			o := httpsource.Options{URL: url + "/link/orders", Records: "data", Paging: styles["link"]}
			if c.opts != nil {
				c.opts(&o)
			}
			var waits []time.Duration
			o.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			o.Prev = ledger{}.prev
			written := 0
			st, err := httpsource.Fetch(context.Background(), o, func(p *httpsource.Page) error { written += len(p.Records); return nil })
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Fatalf("error shows the secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if written != 50 || st.Retries != c.retries {
				t.Fatalf("%d records, %d retries (waits %v); want 50, %d", written, st.Retries, waits, c.retries)
			}
			if c.name == "429 honours Retry-After" && (len(waits) != 2 || waits[0] != time.Second) {
				t.Fatalf("waits %v, want Retry-After's 1s twice", waits)
			}
		})
	}
}

func TestParseLink(t *testing.T) {
	cases := []struct{ header, next string }{
		{`<https://a/x?page=2>; rel="next"`, "https://a/x?page=2"},
		{`<https://a/1>; rel="prev", <https://a/3>; rel="next"`, "https://a/3"},
		{`<https://a/3>; rel="next last"; title="a, b"`, "https://a/3"},
		{`<https://a/3>; rel=next`, "https://a/3"},
		{`<https://a/1>; rel="prev"`, ""},
		{`garbage, <https://a/4>; REL="Next"`, "https://a/4"},
	}
	for _, c := range cases {
		got := ""
		for _, l := range httpsource.ParseLink([]string{c.header}) {
			if l.Rel("next") {
				got = l.URL
				break
			}
		}
		if got != c.next {
			t.Errorf("%s: next %q, want %q", c.header, got, c.next)
		}
	}
}

func TestRedactedKeyIsStable(t *testing.T) {
	api := testapi.New(5, 10)
	url, stop := api.Start()
	defer stop()
	var keys []string
	o := httpsource.Options{URL: url + "/none/orders?b=2&token=abc123xyz&a=1#frag", Records: "data", Secrets: map[string]string{"TOK": "abc123xyz"},
		Prev: ledger{}.prev}
	_, err := httpsource.Fetch(context.Background(), o, func(p *httpsource.Page) error { keys = append(keys, p.Key); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := url + "/none/orders?a=1&b=2&token=${TOK}"; len(keys) != 1 || keys[0] != want {
		t.Fatalf("keys %v, want %s", keys, want)
	}
	_ = http.StatusOK
}
