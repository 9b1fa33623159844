package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDocsServe: --serve serves the written files byte for byte, and
// stops when the command's context ends (Ctrl-C).
func TestDocsServe(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"index.html": "<!DOCTYPE html><title>x</title>", "data.js": "window.IDEMC_DOCS = {};\n", "models/m.html": "m"}
	for rel, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() { done <- serveDocs(ctx, dir, "127.0.0.1:0", &out, func(a string) { addr <- a }) }()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a + "/"
	case err := <-done:
		t.Fatalf("serve ended before listening: %v", err)
	}
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for rel, text := range files {
		if code, body := get(rel); code != 200 || body != text {
			t.Errorf("GET %s: %d %q, want 200 %q", rel, code, body, text)
		}
	}
	if code, _ := get("nothing.html"); code != 404 {
		t.Errorf("GET nothing.html: %d, want 404", code)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.As(err, new(*interruptedError)) {
			t.Errorf("serve ended with %v, want an interrupt", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop when its context ended")
	}
	// A port already taken is bad usage (exit 2), not a crash.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	busy := make(chan string, 1)
	go func() { _ = serveDocs(ctx2, dir, "127.0.0.1:0", io.Discard, func(a string) { busy <- a }) }()
	err := serveDocs(context.Background(), dir, <-busy, io.Discard, nil)
	if !errors.As(err, new(*usageError)) {
		t.Errorf("serving on a taken port: %v, want a usage error", err)
	}
}
