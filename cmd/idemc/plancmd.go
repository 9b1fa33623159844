package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// planUnit is one unit of idemc plan's output.
type planUnit struct {
	UniqueID  string `json:"unique_id"`
	Unit      string `json:"unit"`
	Model     string `json:"model"`
	Partition string `json:"partition,omitempty"`
	Kind      string `json:"kind"`
	Reason    string `json:"reason"`
}

type planOut struct {
	Target        string     `json:"target"`
	AsOf          string     `json:"as_of"`
	Units         []planUnit `json:"units"`
	UpToDate      []string   `json:"up_to_date"`
	UpToDateCount int        `json:"up_to_date_count"`
}

func planCmd(c *common) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "list the units a build with the same flags would run now, and why; writes nothing to the warehouse",
		Long: "plan reads the target's state as build does and lists every unit build would run — never run, failed,\n" +
			"code or settings changed, upstream data changed (which), inputs changed, destination missing, forced, logical time moved —\n" +
			"and the units it would leave up to date. Nothing is written to the warehouse, nor to target/compiled.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			opts.Seeds = true
			pl, err := runner.Plan(cmd.Context(), p, opts)
			if err != nil {
				return err
			}
			out := planOut{Target: pl.Target, AsOf: pl.AsOf.UTC().Format(time.RFC3339), Units: []planUnit{},
				UpToDate: append([]string{}, pl.UpToDate...), UpToDateCount: pl.UpToDateCount}
			for _, u := range pl.Units {
				out.Units = append(out.Units, planUnit{UniqueID: runner.UnitUniqueID(p.Name, u), Unit: u.ID,
					Model: u.Model, Partition: u.Partition, Kind: u.Kind(), Reason: reasonOf(u)})
			}
			switch {
			case c.log != nil:
				c.log.Result("plan", out)
			case asJSON:
				printJSON(c.stdout, "plan", out)
			default:
				printPlan(c, out)
			}
			return nil
		},
	}
	c.projectFlags(cmd)
	c.selectFlags(cmd)
	c.windowFlags(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func reasonOf(u *plan.Unit) string {
	switch {
	case u.Reason != "":
		return u.Reason
	case u.Seed:
		return "seed content or destination changed"
	}
	return "stale"
}

func printPlan(c *common, out planOut) {
	fmt.Fprintf(c.stdout, "plan on %s as of %s: %d units to run, %d up to date\n", out.Target, out.AsOf, len(out.Units), out.UpToDateCount)
	for _, u := range out.Units {
		part := u.Partition
		if part == "" {
			part = "-"
		}
		fmt.Fprintf(c.stdout, "  %-28s %-13s %-26s %s\n", u.Model, part, u.Kind, u.Reason)
	}
	if out.UpToDateCount > 0 {
		fmt.Fprintf(c.stdout, "up to date: %s\n", runner.UpToDateSummary(out.UpToDate, out.UpToDateCount))
	}
}
