package compiler_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemc/idemc/compiler"
)

// incModels are models whose renders differ with the warehouse's state
// (is_incremental()) and models whose renders do not.
var incModels = map[string]string{
	"src": `/* idemc
materialized = "table"
*/
SELECT 1 AS id`,
	"inc": `/* idemc
materialized = "incremental"
strategy = "merge"
unique_key = ["id"]
*/
SELECT id FROM {{ ref("src") }}
{% if is_incremental() %}WHERE id > (SELECT coalesce(max(id), 0) FROM {{ this }}){% endif %}`,
	// A table calling is_incremental(): always false, one render.
	"tbl": `/* idemc
materialized = "table"
*/
SELECT id FROM {{ ref("src") }}{% if is_incremental() %} WHERE 1 = 0{% endif %}`,
	"plain": `/* idemc
materialized = "incremental"
strategy = "merge"
unique_key = ["id"]
*/
SELECT id FROM {{ ref("src") }}`,
}

// TestCodeHashStateFree: a model's code hash does not depend on the
// warehouse: an is_incremental() model hashes the same before its first
// build, on top of its relation and under --full-refresh (with and without
// the compile cache), while the SQL that runs is still the render for the
// state; an edit in either branch changes the hash.
func TestCodeHashStateFree(t *testing.T) {
	dir := jinjaDir(t, incModels)
	cache := filepath.Join(dir, "target")
	states := []struct {
		name    string
		opts    compiler.Options
		filters bool // the unit's SQL holds the is_incremental() filter
	}{
		{"first build", compiler.Options{State: nothingExists{}}, false},
		{"relation exists", compiler.Options{}, true},
		{"full refresh", compiler.Options{FullRefresh: true}, false},
		{"first build, cached", compiler.Options{State: nothingExists{}, Cache: cache}, false},
		{"relation exists, cached", compiler.Options{Cache: cache}, true},
		{"first build, cached again", compiler.Options{State: nothingExists{}, Cache: cache}, false},
	}
	hashes := map[string]string{}
	for _, st := range states {
		pl := compileJinja(t, dir, "dev", nil, st.opts)
		for _, m := range []string{"inc", "tbl", "plain"} {
			h := pl.Nodes[m].CodeHash
			if hashes[m] == "" {
				hashes[m] = h
			} else if h != hashes[m] {
				t.Errorf("%s: %s has code hash %s, %s elsewhere", st.name, m, h, hashes[m])
			}
		}
		if got := strings.Contains(unitSQL(pl, "inc"), "coalesce(max(id), 0)"); got != st.filters {
			t.Errorf("%s: the SQL run holds the is_incremental() filter: %v, want %v\n%s", st.name, got, st.filters, unitSQL(pl, "inc"))
		}
	}
	// Either branch is code: editing the one a first build does not take
	// changes the hash a first build computes.
	edit(t, filepath.Join(dir, "models", "inc.sql"), "coalesce(max(id), 0)", "coalesce(max(id), -1)")
	for _, st := range states[:2] {
		if h := compileJinja(t, dir, "dev", nil, st.opts).Nodes["inc"].CodeHash; h == hashes["inc"] {
			t.Errorf("%s: editing the is_incremental() branch left the code hash %s", st.name, h)
		}
	}
}

// TestCodeHashCacheOtherRender: the compile cache keeps what the render
// that does not run read: an env var only the is_incremental() branch reads
// is an input of a first build's cached hash too.
func TestCodeHashCacheOtherRender(t *testing.T) {
	dir := jinjaDir(t, map[string]string{
		"src": incModels["src"],
		"inc": `/* idemc
materialized = "incremental"
strategy = "merge"
unique_key = ["id"]
*/
SELECT id FROM {{ ref("src") }}{% if is_incremental() %} WHERE id > {{ env_var("INC_FLOOR", "0") }}{% endif %}`,
	})
	opts := compiler.Options{State: nothingExists{}, Cache: filepath.Join(dir, "target")}
	t.Setenv("INC_FLOOR", "1")
	before := compileJinja(t, dir, "dev", nil, opts).Nodes["inc"].CodeHash
	t.Setenv("INC_FLOOR", "2")
	if after := compileJinja(t, dir, "dev", nil, opts).Nodes["inc"].CodeHash; after == before {
		t.Errorf("the is_incremental() branch reads INC_FLOOR, which changed, but the cached code hash %s did not", after)
	}
	cold := compileJinja(t, dir, "dev", nil, compiler.Options{State: nothingExists{}}).Nodes["inc"].CodeHash
	if warm := compileJinja(t, dir, "dev", nil, opts).Nodes["inc"].CodeHash; warm != cold {
		t.Errorf("cached code hash %s, cold %s", warm, cold)
	}
}
