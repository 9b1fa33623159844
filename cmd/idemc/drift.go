package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

// printDrift is idemc status --drift: the units whose latest attempt broke
// a [drift] rule. Listing them is not a failure: exit 0.
func (c *common) printDrift(cmd *cobra.Command, p *project.Project, opts compiler.Options, asJSON bool) error {
	rows, err := runner.Drift(cmd.Context(), p, opts)
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []runner.DriftRow{}
	}
	switch {
	case c.log != nil:
		c.log.Result("status", rows)
	case asJSON:
		printJSON(c.stdout, "drift", rows)
	case len(rows) == 0:
		fmt.Fprintln(c.stdout, "drift: no partition is out of bounds")
	default:
		fmt.Fprintf(c.stdout, "%-28s %-13s %10s %10s %7s  %-40s %-8s %s\n", "MODEL", "PARTITION", "ROWS", "MEDIAN", "RATIO", "RULE", "SEVERITY", "STATUS")
		for _, r := range rows {
			part := r.Partition
			if part == "" {
				part = "-"
			}
			fmt.Fprintf(c.stdout, "%-28s %-13s %10d %10s %7s  %-40s %-8s %s\n", r.Model, part, r.Rows, num(r.Median), num(r.Ratio), r.Rule, r.Severity, r.Status)
		}
	}
	return nil
}

func num(f *float64) string {
	if f == nil {
		return "-"
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}
