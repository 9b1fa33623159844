package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/idemc/idemc/runner"
)

// lsOrphans is `idemc ls --orphans`: the relations idemc wrote that no
// model or seed produces any more (runner.Orphans).
func (c *common) lsOrphans(cmd *cobra.Command, asJSON bool) error {
	p, opts, err := c.load()
	if err != nil {
		return err
	}
	orphans, err := runner.Orphans(cmd.Context(), p, opts)
	if err != nil {
		return err
	}
	return c.printOrphans("orphans", orphans, asJSON)
}

func (c *common) printOrphans(event string, orphans []runner.Orphan, asJSON bool) error {
	if orphans == nil {
		orphans = []runner.Orphan{}
	}
	switch {
	case c.log != nil:
		c.log.Result(event, orphans)
	case asJSON:
		printJSON(c.stdout, "orphans", orphans)
	case len(orphans) == 0:
		fmt.Fprintln(c.stdout, "no orphans: every relation idemc wrote is produced by a model or seed")
	default:
		for _, o := range orphans {
			fmt.Fprintf(c.stdout, "%-40s %-6s written by %s\n", o.Relation, o.Kind, strings.Join(o.Models, ", "))
		}
	}
	return nil
}

// cleanCmd is `idemc clean --orphans [--dry-run]`.
func cleanCmd(c *common) *cobra.Command {
	var orphans, dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "clean --orphans [--dry-run]",
		Short: "drop the relations idemc wrote that no model or seed produces any more",
		Long: "clean --orphans drops what `idemc ls --orphans` lists (tables with DROP TABLE, views with DROP VIEW) and forgets them in idemc_latest; " +
			"a relation idemc did not write is never dropped. --dry-run prints the statements and runs none.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !orphans {
				return &usageError{"clean needs --orphans (the only thing it cleans): idemc clean --orphans [--dry-run]"}
			}
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			say := func(q string) {
				if dryRun && c.log == nil && !asJSON {
					fmt.Fprintln(c.stdout, q+";")
				}
			}
			dropped, err := runner.CleanOrphans(cmd.Context(), p, opts, dryRun, say)
			if err != nil {
				return err
			}
			if dryRun || c.log != nil || asJSON {
				return c.printOrphans("clean", dropped, asJSON)
			}
			for _, o := range dropped {
				fmt.Fprintf(c.stdout, "dropped %s %s\n", o.Kind, o.Relation)
			}
			fmt.Fprintf(c.stdout, "%d orphans dropped\n", len(dropped))
			return nil
		},
	}
	c.projectFlags(cmd)
	cmd.Flags().BoolVar(&orphans, "orphans", false, "drop the orphans `idemc ls --orphans` lists")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the statements, run none")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
