package sqlgen

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idemc/idemc/adapters"
)

func TestDerive(t *testing.T) {
	pg := adapters.IdentLimit{Name: 63, Column: 63, Bytes: true}
	my := adapters.IdentLimit{Name: 64, Column: 64}
	long := strings.Repeat("a", 60)
	uni := strings.Repeat("ü", 31) // 62 bytes, 31 characters
	tests := []struct {
		name         string
		l            adapters.IdentLimit
		base, suffix string
		want         string // "" : only the invariants are checked
	}{
		{"fits", pg, "events", "__idemc_stage", "events__idemc_stage"},
		{"no limit", adapters.IdentLimit{}, long + long, "__idemc_new", long + long + "__idemc_new"},
		{"cut with hash", pg, long, "__idemc_stage", ""},
		{"unicode bytes", pg, uni, "__idemc_ts", ""},
		{"unicode characters fit", my, uni, "__idemc_ts", uni + "__idemc_ts"},
		{"suffix alone too long", pg, "t", "__idemc_" + long, ""},
	}
	for _, tt := range tests {
		got := Derive(tt.l, tt.l.Name, tt.base, tt.suffix)
		if tt.want != "" && got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		if tt.l.Name > 0 && tt.l.Len(got) > tt.l.Name {
			t.Errorf("%s: %q is %d %s, over %d", tt.name, got, tt.l.Len(got), tt.l.Unit(), tt.l.Name)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: %q is not valid UTF-8 (cut inside a character)", tt.name, got)
		}
		if Derive(tt.l, tt.l.Name, tt.base, tt.suffix) != got {
			t.Errorf("%s: not deterministic", tt.name)
		}
		if len(tt.suffix) < 20 && !strings.HasSuffix(got, tt.suffix) {
			t.Errorf("%s: %q lost its suffix %q", tt.name, got, tt.suffix)
		}
	}
	// Two bases sharing their first 63 bytes get two names.
	a, b := Derive(pg, 63, long+"_first", "__idemc_stage"), Derive(pg, 63, long+"_second", "__idemc_stage")
	if a == b {
		t.Errorf("%q and %q: one stage for two tables", a, b)
	}
}

// TestHash32 pins the hash of derived names to FNV-1a (32 bits): MySQL's
// lock names and BigQuery's and Spark's staging tables of an earlier
// release must keep their names.
func TestHash32(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
	}{{"", 0x811c9dc5}, {"a", 0xe40c292c}, {"foobar", 0xbf9cf968}} {
		if got := Hash32(tc.in); got != tc.want {
			t.Errorf("Hash32(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}
