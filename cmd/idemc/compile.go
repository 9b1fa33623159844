package main

import (
	"bufio"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/analyze"
	"github.com/idemc/idemc/runner"
)

func compileCmd(c *common) *cobra.Command {
	var printSQL bool
	cmd := &cobra.Command{
		Use:   "compile",
		Short: "print the plan and write its SQL to target/compiled/; no connection",
		Long: "compile renders, analyses and plans the selected models for a target without connecting to it.\n" +
			"It writes one file per unit to target/compiled/<model>/<partition>.sql and prints the plan.\n" +
			"Without a connection every destination is assumed to exist and no partition to have run.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A unit whose file target/compiled holds already, for the same
			// key, keeps it: its recipe is not built again (--sql prints it).
			// Without --sql the recipes are not kept either, once filed.
			// The index is read while the project renders: during the load
			// the load cache's decoding keeps both CPUs busy.
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			idx := runner.OpenCompiled(c.projectDir)
			if err := statelessSelection(opts); err != nil {
				return err
			}
			if !printSQL && opts.Cache != "" {
				opts.Reuse = idx.Reuse
			}
			if !printSQL {
				opts.Filed = idx.Filed // the files are written as the recipes are made
			}
			pl, err := compiler.Compile(p, opts)
			if err != nil {
				return err
			}
			printFindings(c, pl.Findings, analyze.Warning)
			ad, _ := adapters.Lookup(pl.Engine)
			if err := idx.Write(pl, ad.Dialect); err != nil {
				return err
			}
			if printSQL {
				fmt.Fprint(c.stdout, pl.Format(true))
				return nil
			}
			caps := ad.Capabilities
			out := bufio.NewWriter(c.stdout) // a line per unit: one write each cost 10k system calls at 10k models
			fmt.Fprintf(out, "target %s (%s): %s\n", pl.Target, pl.Engine, ad.Docs)
			fmt.Fprintf(out, "capabilities: transactional DDL %s, MERGE %s, native partition overwrite %s, checks inside the write %s, lock: %s\n",
				yes(caps.TransactionalDDL), yes(caps.Merge), yes(caps.PartitionOverwrite), yes(caps.ChecksInWrite), caps.Lock)
			for _, u := range pl.Units {
				fmt.Fprintf(out, "  %-28s %-12s %-24s %d steps\n", u.Model, u.PartitionLabel(), u.Kind(), u.StepCount())
			}
			fmt.Fprintf(out, "%d units of %d selected models compiled into %s\n", len(pl.Units), len(pl.Selected), filepath.Join("target", "compiled"))
			return out.Flush()
		},
	}
	c.projectFlags(cmd)
	c.selectFlags(cmd)
	c.windowFlags(cmd)
	cmd.Flags().BoolVar(&printSQL, "sql", false, "print every step's SQL instead of the summary")
	return cmd
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// printFindings prints lint findings at or above min severity to stderr.
func printFindings(c *common, fs []analyze.Finding, min analyze.Severity) {
	for _, f := range fs {
		if f.Severity >= min {
			fmt.Fprintf(c.stderr, "%s: %s\n", f.Severity, f)
		}
	}
}

func lintCmd(c *common) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "run the lint rules (L000–L007) on the selected models",
		Long:  "lint prints every finding as path:line:col: rule message. It exits 1 when a finding is an error.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			if err := statelessSelection(opts); err != nil {
				return err
			}
			opts.LintOnly = true
			opts.Models = false
			opts.NoUnits = true // findings and nodes only
			pl, err := compiler.Compile(p, opts)
			if err != nil {
				return err
			}
			chosen := map[string]bool{}
			for _, n := range pl.Selected {
				if node := pl.Nodes[n]; node != nil {
					chosen[node.Path] = true
				}
			}
			errorsFound := 0
			shown := 0
			for _, f := range pl.Findings {
				if !chosen[f.Path] {
					continue
				}
				shown++
				fmt.Fprintf(c.stdout, "%s (%s)\n", f, f.Severity)
				if f.Severity == analyze.Error {
					errorsFound++
				}
			}
			if errorsFound > 0 {
				return &failedError{fmt.Sprintf("%d findings, %d errors", shown, errorsFound)}
			}
			fmt.Fprintf(c.stdout, "%d findings, 0 errors in %d models\n", shown, len(chosen))
			return nil
		},
	}
	c.projectFlags(cmd)
	c.selectFlags(cmd)
	return cmd
}

func lsCmd(c *common) *cobra.Command {
	var asJSON, orphans bool
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "list the selected models and seeds in dependency order",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if orphans {
				return c.lsOrphans(cmd, asJSON)
			}
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			if err := statelessSelection(opts); err != nil {
				return err
			}
			opts.Models = false
			opts.NoUnits = true  // nodes and the graph only
			opts.LintOnly = true // a finding does not hide the graph
			pl, err := compiler.Compile(p, opts)
			if err != nil {
				return err
			}
			type row struct {
				UniqueID     string   `json:"unique_id"`
				ResourceType string   `json:"resource_type"`
				Name         string   `json:"name"`
				Kind         string   `json:"kind"`
				Path         string   `json:"path"`
				Relation     string   `json:"relation"`
				Tags         []string `json:"tags,omitempty"`
				DependsOn    []string `json:"depends_on"`
			}
			var rows []row
			ad, _ := adapters.Lookup(pl.Engine)
			for _, n := range pl.Selected {
				node := pl.Nodes[n]
				kind := "seed"
				if node.HTTP {
					kind = "http"
				} else if !node.Seed {
					kind = node.Materialized
					if node.Strategy != "" {
						kind += " " + node.Strategy
					}
					if node.PartitionBy != "" {
						kind += " by " + node.PartitionBy + "/" + node.Granularity
					}
				}
				rtype := "model"
				if node.Seed {
					rtype = "seed"
				}
				rows = append(rows, row{UniqueID: rtype + "." + p.Name + "." + n, ResourceType: rtype, Name: n, Kind: kind, Path: node.Path, Relation: ad.Dialect.Qualify(node.Relation), Tags: node.Tags, DependsOn: pl.Graph.Upstream(n)})
			}
			if c.log != nil {
				c.log.Result("ls", rows)
				return nil
			}
			if asJSON {
				printJSON(c.stdout, "nodes", rows)
				return nil
			}
			for _, r := range rows {
				fmt.Fprintf(c.stdout, "%-24s %-40s %s\n", r.Name, r.Kind, r.Path)
			}
			return nil
		},
	}
	c.projectFlags(cmd)
	c.selectFlags(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&orphans, "orphans", false, "list the relations idemc wrote that no model or seed produces any more (from the target's idemc_latest)")
	return cmd
}
