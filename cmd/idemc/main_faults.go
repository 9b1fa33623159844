//go:build idemc_faults

package main

import (
	"os"

	"github.com/idemc/idemc/internal/faultinject"
)

// main of the fault trials' binary (go build -tags idemc_faults): the
// IDEMC_FAULT rules of internal/faultinject run after every step.
func main() {
	os.Exit(runWith(os.Args[1:], os.Stdout, os.Stderr, faultinject.FromEnv()))
}
