package faultinject

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAwait: an await rule holds its step until the file exists, and an
// interrupt (a cancelled context) ends the wait as a failed step.
func TestAwait(t *testing.T) {
	file := filepath.Join(t.TempDir(), "release")
	hook := Parse("await:m/2026-07-01:audit_start:" + file)
	if err := hook(context.Background(), "other", "audit_start"); err != nil {
		t.Fatalf("another unit waited: %v", err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- hook(context.Background(), "m/2026-07-01", "audit_start") }()
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(file + ".reached"); err != nil {
		t.Fatalf("the waiting step did not say it was reached: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("returned before the file existed: %v", err)
	default:
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("await: %v after %s", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Parse("await:*:audit_start:"+file+".never")(ctx, "x", "audit_start"); err == nil {
		t.Fatal("a cancelled wait did not fail its step")
	}
}
