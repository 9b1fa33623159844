package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
)

// threadsValue is --threads: a whole number of at least 1; unset (0) means
// the project's [run] threads, or 4. pflag reports a refused value as a
// usage error (exit 2) naming the flag.
type threadsValue struct{ n *int }

func (v threadsValue) String() string {
	if v.n == nil || *v.n == 0 {
		return ""
	}
	return strconv.Itoa(*v.n)
}

func (v threadsValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number of units run at once, such as 4")
	}
	if n < 1 {
		return fmt.Errorf("at least 1 unit must run at once, not %d", n)
	}
	*v.n = n
	return nil
}

func (threadsValue) Type() string { return "int" }

// threadsFlag adds --threads to cmd.
func threadsFlag(cmd *cobra.Command, n *int, usage string) {
	cmd.Flags().Var(threadsValue{n}, "threads", usage)
}
