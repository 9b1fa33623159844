package project

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestKeyLines: the lines scanned once (scanKeyLines) find every key where
// the line-by-line lookup it replaced did, in headers with tables, dotted
// and quoted keys, inline tables, comments and keys that are not there.
func TestKeyLines(t *testing.T) {
	texts := []string{
		"materialized = \"incremental\"\npartition_by = \"d\"\n# a comment = 1\nchecks.unique = [\"id\"]\n",
		"tags = [\"a\"] # tags = here\n[checks]\nnot_null = [\"id\"]\nmin_rows = { value = 1, severity = \"warn\" }\n[drift]\nrow_count = { max_change = 0.5 }\n",
		"[watermark]\ncolumn = \"updated_at\"\n[checks.accepted_values]\nstatus = [\"ok\"]\n",
		"\"quoted.key\" = 1\nsite.\"a.b\".c = 2\n[models.\"staging/*\"]\nmaterialized = \"view\"\n",
		"expect = [\"sum(x) >= 0\"]\n\n[checks]\n  unique = [\"k\"]  # trailing\n",
		"x = 1\n[only.table]\n", // only is defined by its sub-table's header
	}
	extra := []toml.Key{{"missing"}, {"checks", "missing"}, {"checks"}, {"drift", "row_count", "max_change"}, {"models", "staging/*"}, {"only"}, {}}
	for _, text := range texts {
		var v map[string]any
		md, err := toml.Decode(text, &v)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		lines := strings.Split(text, "\n")
		kl := scanKeyLines(lines)
		for _, k := range append(md.Keys(), extra...) {
			if got, want := kl.find(k), lineByLine(lines, k); got != want {
				t.Errorf("%q in %q: line %d, want %d", k, text, got, want)
			}
		}
	}
}

// lineByLine is the lookup scanKeyLines replaced, kept as the reference.
func lineByLine(lines []string, k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	var table []string
	tableLine := 0
	for i, raw := range lines {
		l := strings.TrimSpace(stripComment(raw))
		if strings.HasPrefix(l, "[") {
			l = strings.Trim(l, "[] \t")
			table = splitDotted(l)
			if equalKeys(table, k) {
				return i + 1
			}
			if tableLine == 0 && len(table) > len(k) && equalKeys(table[:len(k)], k) {
				tableLine = i + 1
			}
			continue
		}
		eq := strings.IndexByte(l, '=')
		if eq <= 0 {
			continue
		}
		full := append(append([]string{}, table...), splitDotted(strings.TrimSpace(l[:eq]))...)
		if equalKeys(full, k) || (len(full) > len(k) && equalKeys(full[:len(k)], k)) {
			return i + 1
		}
		if len(full) == len(k)-1 && equalKeys(full, k[:len(k)-1]) && strings.Contains(l[eq:], k[len(k)-1]) {
			return i + 1
		}
	}
	return tableLine
}
