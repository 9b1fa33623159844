package main

import (
	"strings"
	"testing"
)

func TestSelectArgs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"build --select a b --exclude c d --threads 2", "build --select a --select b --exclude c --exclude d --threads 2"},
		{"build -s a b", "build -s a -s b"},
		{"build --select=a b", "build --select=a --select b"},
		{"build --select a", "build --select a"},
		{"init dir --engine duckdb", "init dir --engine duckdb"},
		{"build --select a -- b c", "build --select a -- b c"},
		{"build --full-refresh --select a b", "build --full-refresh --select a --select b"},
	} {
		if got := strings.Join(selectArgs(strings.Fields(tt.in)), " "); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
}
