//go:build !idemc_faults

// Command idemc compiles a folder of SQL models into idempotent writes and
// runs them on a warehouse. See README.md and docs/.
//
// A build with the idemc_faults tag (main_faults.go) is the binary of the
// fault trials; this one injects nothing.
package main

import (
	"os"

	"github.com/idemc/idemc/internal/gctune"
)

func main() {
	gctune.Start(heapTarget, memoryLimit)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
