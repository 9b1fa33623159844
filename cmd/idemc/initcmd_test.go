package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionText(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"release", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"},
			Settings: vcs("vcs.revision", "abc123", "vcs.time", "2026-12-01T10:00:00Z", "vcs.modified", "false")},
			"idemc v1.2.0 commit abc123 (2026-12-01T10:00:00Z) go1.26.8"},
		{"dirty tree", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-2026-abc+dirty"},
			Settings: vcs("vcs.revision", "abc123", "vcs.modified", "true")},
			"idemc v0.0.0-2026-abc+dirty commit abc123-dirty go1.26.8"},
		{"no vcs", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"idemc (devel) commit unknown (built without VCS information) go1.26.8"},
		{"no module version", &debug.BuildInfo{GoVersion: "go1.26.8"},
			"idemc (devel) commit unknown (built without VCS information) go1.26.8"},
		{"no build info", nil, "idemc (no build information)"},
	}
	for _, tt := range tests {
		if got := versionText(tt.info); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
