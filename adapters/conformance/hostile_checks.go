package conformance

// Hostile checks and tests (issue 17, item 6): a check expression that
// would leave its parentheses and add statements is refused before
// anything runs, and idemc test (and build's singular tests) cannot write.

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

func hostileChecks(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, map[string]string{
		"models/keep.sql": "/* idemc\nmaterialized = \"table\"\n[checks]\nmin_rows = 1\n*/\nSELECT 1 AS n UNION ALL SELECT 2",
	})
	e.mustSucceed(e.build("2026-07-03T00:00:00Z", nil))
	keep := e.rel("keep")

	// The injection closes the check's parentheses, drops keep and opens
	// a new SELECT for the rest of the check query.
	inject := "true) AS ok FROM " + keep + ") AS c WHERE false; DROP TABLE " + keep + "; SELECT ok FROM (SELECT (true"
	e.write(map[string]string{"models/keep.sql": "/* idemc\nmaterialized = \"table\"\n[checks]\nexpect = [" +
		tomlString(inject) + "]\n*/\nSELECT 1 AS n UNION ALL SELECT 2"})
	_, err := e.buildErr("2026-07-03T00:00:00Z", func(o *compiler.Options) { o.FullRefresh = true })
	if err == nil || !strings.Contains(err.Error(), "models/keep.sql:4: checks.expect[1]") || !strings.Contains(err.Error(), "is not one SQL expression") {
		t.Fatalf("build with an injected expect: %v, want the positioned refusal", err)
	}
	p, err := project.Load(e.dir)
	if err == nil {
		_, err = runner.Test(context.Background(), p, compiler.Options{AsOf: time.Now()})
	}
	if err == nil || !strings.Contains(err.Error(), "checks.expect[1]") {
		t.Fatalf("test with an injected expect: %v, want the positioned refusal", err)
	}
	if got := e.query("SELECT count(*) FROM " + keep); got[0][0] != "2" {
		t.Fatalf("keep has %v rows after the refused injection, want 2", got)
	}

	// A singular test that deletes fails in its read-only transaction; the
	// others still run.
	e.write(map[string]string{
		"models/keep.sql":  "/* idemc\nmaterialized = \"table\"\n[checks]\nmin_rows = 1\n*/\nSELECT 1 AS n UNION ALL SELECT 2",
		"tests/delete.sql": "DELETE FROM {{ ref(\"keep\") }} WHERE n > 0",
		"tests/fine.sql":   "SELECT n FROM {{ ref(\"keep\") }} WHERE n > 2",
	})
	p, err = project.Load(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	results, err := runner.Test(context.Background(), p, compiler.Options{AsOf: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, r := range results {
		status[r.Path] = string(r.Status)
	}
	if status["tests/delete.sql"] != "fail" || status["tests/fine.sql"] != "pass" || status["min_rows(1)"] != "pass" {
		t.Errorf("test results %v, want the delete failed, the rest passed", status)
	}
	if got := e.query("SELECT count(*) FROM " + keep); got[0][0] != "2" {
		t.Errorf("keep has %v rows after idemc test, want 2: a test wrote", got)
	}
}
