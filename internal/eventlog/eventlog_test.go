package eventlog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestLines: text written in any pieces becomes one log event per
// non-empty line, an unfinished last line at Close.
func TestLines(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"one line", []string{"a\n"}, []string{"a"}},
		{"split writes", []string{"he", "llo\nwor", "ld\n"}, []string{"hello", "world"}},
		{"blank lines dropped", []string{"\nx\n\n"}, []string{"x"}},
		{"unfinished last line", []string{"x\ny"}, []string{"x", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := New(&out).Lines("info")
			for _, s := range tt.writes {
				if _, err := w.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()
			var got []string
			for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if line == "" {
					continue
				}
				var e struct {
					SchemaVersion int    `json:"schema_version"`
					Event         string `json:"event"`
					Level         string `json:"level"`
					Message       string `json:"message"`
				}
				if err := json.Unmarshal([]byte(line), &e); err != nil || e.SchemaVersion != 1 || e.Event != "log" || e.Level != "info" {
					t.Fatalf("bad event %q: %v", line, err)
				}
				got = append(got, e.Message)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("messages = %q, want %q", got, tt.want)
			}
		})
	}
}
