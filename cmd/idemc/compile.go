package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/analyze"
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
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			plan, err := compiler.Compile(p, opts)
			if err != nil {
				return err
			}
			printFindings(c, plan.Findings, analyze.Warning)
			if err := writeCompiled(p.Root, plan); err != nil {
				return err
			}
			if printSQL {
				fmt.Fprint(c.stdout, plan.Format(true))
				return nil
			}
			ad, _ := adapters.Lookup(plan.Engine)
			caps := ad.Capabilities
			fmt.Fprintf(c.stdout, "target %s (%s): %s\n", plan.Target, plan.Engine, ad.Docs)
			fmt.Fprintf(c.stdout, "capabilities: transactional DDL %s, MERGE %s, native partition overwrite %s, checks inside the write %s, lock: %s\n",
				yes(caps.TransactionalDDL), yes(caps.Merge), yes(caps.PartitionOverwrite), yes(caps.ChecksInWrite), caps.Lock)
			for _, u := range plan.Units {
				kind := "seed"
				if !u.Seed {
					kind = u.Write.Materialized
					if u.Write.Strategy != "" {
						kind += " " + u.Write.Strategy
					}
				}
				part := u.Partition
				if part == "" {
					part = "-"
				}
				fmt.Fprintf(c.stdout, "  %-28s %-12s %-24s %d steps\n", u.Model, part, kind, len(u.Steps))
			}
			fmt.Fprintf(c.stdout, "%d units of %d selected models compiled into %s\n", len(plan.Units), len(plan.Selected), filepath.Join("target", "compiled"))
			return nil
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

// writeCompiled replaces target/compiled with the plan's SQL, one file per
// unit, plus target/manifest.json. It writes into a fresh folder and swaps it
// in, so a failed compile leaves the previous output.
func writeCompiled(root string, plan *compiler.Plan) error {
	dir := filepath.Join(root, "target", "compiled")
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	for _, u := range plan.Units {
		if u.Seed {
			continue
		}
		name := u.Partition
		if name == "" {
			name = u.Model
		}
		path := filepath.Join(tmp, u.Model, name+".sql")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		var b strings.Builder
		compiler.FormatUnit(&b, u, true)
		if err := os.WriteFile(path, []byte(strings.TrimLeft(b.String(), "\n")), 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	return writeManifest(root, plan)
}

// CompiledPath is where a unit's SQL is written, for error messages.
func compiledPath(u *compiler.Unit) string {
	name := u.Partition
	if name == "" {
		name = u.Model
	}
	return filepath.Join("target", "compiled", u.Model, name+".sql")
}

type manifestNode struct {
	Name         string   `json:"name"`
	Path         string   `json:"path"`
	Kind         string   `json:"kind"`
	Materialized string   `json:"materialized,omitempty"`
	Strategy     string   `json:"strategy,omitempty"`
	Relation     string   `json:"relation"`
	PartitionBy  string   `json:"partition_by,omitempty"`
	Granularity  string   `json:"granularity,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	CodeHash     string   `json:"code_hash,omitempty"`
	DependsOn    []string `json:"depends_on"`
	Checks       []string `json:"checks,omitempty"`
}

func writeManifest(root string, plan *compiler.Plan) error {
	ad, _ := adapters.Lookup(plan.Engine)
	out := struct {
		Project string         `json:"project"`
		Target  string         `json:"target"`
		Engine  string         `json:"engine"`
		Nodes   []manifestNode `json:"nodes"`
	}{Project: plan.Project, Target: plan.Target, Engine: plan.Engine}
	for _, n := range plan.Graph.Nodes() {
		node := plan.Nodes[n]
		mn := manifestNode{Name: n, Path: node.Path, Kind: "model", Materialized: node.Materialized, Strategy: node.Strategy,
			Relation: ad.Dialect.Qualify(node.Relation), PartitionBy: node.PartitionBy, Granularity: node.Granularity,
			Tags: node.Tags, CodeHash: node.CodeHash, DependsOn: plan.Graph.Upstream(n)}
		if node.Seed {
			mn.Kind = "seed"
		}
		for _, ch := range node.Checks {
			mn.Checks = append(mn.Checks, ch.Name)
		}
		out.Nodes = append(out.Nodes, mn)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "target", "manifest.json"), append(b, '\n'), 0o644)
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
			opts.LintOnly = true
			opts.Models = false
			plan, err := compiler.Compile(p, opts)
			if err != nil {
				return err
			}
			chosen := map[string]bool{}
			for _, n := range plan.Selected {
				if node := plan.Nodes[n]; node != nil {
					chosen[node.Path] = true
				}
			}
			errorsFound := 0
			shown := 0
			for _, f := range plan.Findings {
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
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "list the selected models and seeds in dependency order",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			opts.Models = false
			plan, err := compiler.Compile(p, opts)
			if err != nil {
				return err
			}
			type row struct {
				Name, Kind, Path, Relation string
				Tags                       []string `json:",omitempty"`
				DependsOn                  []string
			}
			var rows []row
			ad, _ := adapters.Lookup(plan.Engine)
			for _, n := range plan.Selected {
				node := plan.Nodes[n]
				kind := "seed"
				if !node.Seed {
					kind = node.Materialized
					if node.Strategy != "" {
						kind += " " + node.Strategy
					}
					if node.PartitionBy != "" {
						kind += " by " + node.PartitionBy + "/" + node.Granularity
					}
				}
				rows = append(rows, row{Name: n, Kind: kind, Path: node.Path, Relation: ad.Dialect.Qualify(node.Relation), Tags: node.Tags, DependsOn: plan.Graph.Upstream(n)})
			}
			if asJSON {
				b, _ := json.MarshalIndent(rows, "", "  ")
				fmt.Fprintln(c.stdout, string(b))
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
	return cmd
}
