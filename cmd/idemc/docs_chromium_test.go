package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/internal/testtree"
)

// chromium finds Debian's headless Chromium ($IDEMC_CHROMIUM, else
// chromium on PATH). Without it the test skips, as the live suites do,
// unless IDEMC_REQUIRE_LIVE=1.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("IDEMC_CHROMIUM"); p != "" {
		return p
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("IDEMC_REQUIRE_LIVE") == "1" {
			t.Fatal("chromium is not installed and IDEMC_REQUIRE_LIVE=1: run scripts/services.sh chromium")
		}
		t.Skip("chromium is not installed (scripts/services.sh chromium installs it)")
	}
	return p
}

// headless runs chromium on a page with a throwaway profile.
func headless(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=10000"}
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

// TestDocsChromium builds the demo, makes one partition fail for real (a
// NULL user_id arrives for 2026-07-15), writes the docs site and loads it
// in headless Chromium: after its scripts ran, the graph has exactly the
// nodes and edges `idemc ls --json` lists, and the heatmap exactly the
// partitions and statuses `idemc status --json` reports. It saves a
// screenshot to target/docs-site.png.
func TestDocsChromium(t *testing.T) {
	bin := chromium(t)
	started := time.Now()
	dir := t.TempDir()
	for _, name := range []string{"project.toml", "models", "macros", "seeds", "tests"} {
		testtree.Copy(t, filepath.Join("..", "..", name), filepath.Join(dir, name))
	}
	idemc := func(want int, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args, "--project", dir), &out, &errb); code != want {
			t.Fatalf("idemc %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out.String(), errb.String())
		}
		return out.String()
	}
	idemc(0, "build", "--as-of", "2026-08-01T00:00:00Z")
	db, err := sql.Open("duckdb", filepath.Join(dir, "target", "warehouse.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`INSERT INTO raw.staging_events VALUES ('shop', 'docs-late-1', 1, DATE '2026-07-15', NULL, 1.5, TIMESTAMP '2026-07-16 00:00:00')`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	idemc(1, "build", "--select", "events_daily", "--partition", "2026-07-15", "--as-of", "2026-08-01T00:00:00Z")
	idemc(0, "docs", "--as-of", "2026-08-03T00:00:00Z")

	var ls struct {
		Nodes []struct {
			Name      string   `json:"name"`
			DependsOn []string `json:"depends_on"`
		}
	}
	if err := json.Unmarshal([]byte(idemc(0, "ls", "--json")), &ls); err != nil {
		t.Fatal(err)
	}
	var wantNodes, wantEdges []string
	for _, m := range ls.Nodes {
		wantNodes = append(wantNodes, m.Name)
		for _, u := range m.DependsOn {
			wantEdges = append(wantEdges, u+" -> "+m.Name)
		}
	}
	var status struct {
		Units []struct{ Partition, Status string }
	}
	if err := json.Unmarshal([]byte(idemc(0, "status", "--json", "--select", "events_daily", "--start", "2026-07-01", "--end", "2026-08-03")), &status); err != nil {
		t.Fatal(err)
	}
	var wantCells []string
	for _, s := range status.Units {
		wantCells = append(wantCells, s.Partition+" "+s.Status)
	}
	if len(wantCells) != 33 || !contains(wantCells, "2026-07-15 failed") || !contains(wantCells, "2026-08-02 missing") {
		t.Fatalf("the demo's status is not what this test sets up: %v", wantCells)
	}

	index := "file://" + filepath.Join(dir, "target", "docs", "index.html")
	dom := string(headless(t, bin, "--dump-dom", index))
	if !strings.Contains(dom, `data-drawn="true"`) {
		t.Fatalf("the page's script did not finish:\n%s", dom)
	}
	gotNodes := attrs(dom, `<g class="[^"]*" data-node="([^"]+)"`, "")
	gotEdges := attrs(dom, `data-from="([^"]+)" data-to="([^"]+)"`, " -> ")
	heat := dom[strings.Index(dom, `data-model="events_daily"`):]
	gotCells := attrs(heat, `data-partition="([^"]+)" data-status="([^"]+)"`, " ")
	for _, c := range []struct {
		what      string
		got, want []string
	}{{"nodes", gotNodes, wantNodes}, {"edges", gotEdges, wantEdges}, {"heatmap cells", gotCells, wantCells}} {
		sort.Strings(c.want)
		if strings.Join(c.got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s in the page:\n%s\nwant:\n%s", c.what, strings.Join(c.got, "\n"), strings.Join(c.want, "\n"))
		}
	}
	if !strings.Contains(dom, `class="node kind-model mat-incremental failed"`) {
		t.Errorf("events_daily, whose 2026-07-15 failed, is not drawn as failed")
	}

	// index.html#events_daily highlights what it reads and what reads it.
	dom = string(headless(t, bin, "--dump-dom", index+"#events_daily"))
	gotFocus := attrs(dom, `<g class="node [^"]*?\b(self|up|down)\b[^"]*" data-node="([^"]+)"`, " ")
	wantFocus := []string{"down user_summary", "down valid_events", "self events_daily", "up staging_events", "up stg_events"}
	if strings.Join(gotFocus, "|") != strings.Join(wantFocus, "|") {
		t.Errorf("highlighted nodes for #events_daily: %v, want %v", gotFocus, wantFocus)
	}
	for _, n := range wantNodes {
		if _, err := os.Stat(filepath.Join(dir, "target", "docs", "models", n+".html")); err != nil {
			t.Errorf("a click on %s opens a page that does not exist: %v", n, err)
		}
	}

	// The demo's column lineage, one hop per model, with the warehouse's types.
	for page, want := range map[string][]string{
		"user_summary": {`href="valid_events.html#col-event_key">valid_events.event_key</a>`, `<td><code>revenue_cents</code></td><td>DECIMAL(38,0)</td>`},
		"valid_events": {`href="events_daily.html#col-amount_cents">events_daily.amount_cents</a>`, `href="user_summary.html#col-revenue_cents">user_summary.revenue_cents</a>`},
		"events_daily": {`href="stg_events.html#col-source_id">stg_events.source_id</a>`, `href="stg_events.html#col-event_version">stg_events.event_version</a>`},
		"stg_events":   {`href="staging_events.html#col-loaded_at">staging_events.loaded_at</a>`},
	} {
		b, err := os.ReadFile(filepath.Join(dir, "target", "docs", "models", page+".html"))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s.html lacks %s", page, w)
			}
		}
	}

	shot, err := filepath.Abs(filepath.Join("..", "..", "target", "docs-site.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(shot), 0o755); err != nil {
		t.Fatal(err)
	}
	headless(t, bin, "--window-size=1280,1100", "--screenshot="+shot, index)
	if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	t.Logf("screenshot %s; build, docs and Chromium took %v", shot, time.Since(started).Round(time.Millisecond))
}

// attrs lists re's groups joined by sep for each match, sorted.
func attrs(dom, re, sep string) []string {
	var out []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(dom, -1) {
		out = append(out, strings.Join(m[1:], sep))
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
