// Command idemc compiles a folder of SQL models into idempotent writes and
// runs them on a warehouse. See README.md and docs/.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
