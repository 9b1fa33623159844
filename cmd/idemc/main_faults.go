//go:build idemc_faults

package main

import (
	"os"

	"github.com/idemc/idemc/internal/faultinject"
	"github.com/idemc/idemc/internal/gctune"
)

// main of the fault trials' binary (go build -tags idemc_faults): the
// IDEMC_FAULT rules of internal/faultinject run after every step.
func main() {
	gctune.Start(heapTarget, memoryLimit)
	os.Exit(runWith(os.Args[1:], os.Stdout, os.Stderr, faultinject.FromEnv()))
}
