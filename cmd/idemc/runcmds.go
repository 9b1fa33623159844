package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/openlineage"
	"github.com/idemc/idemc/runner"
)

// runnerCommands are the commands that connect to a target.
func runnerCommands(mk func() *common) []*cobra.Command {
	return []*cobra.Command{
		buildCmd(mk(), "build", "seed, run the selected models and the singular tests", true, true, true),
		buildCmd(mk(), "run", "run the selected models (no seeds, no singular tests)", false, true, false),
		buildCmd(mk(), "seed", "load seeds/*.csv in bulk, replacing each table", true, false, false),
		ingestCmd(mk()),
		retryCmd(mk()),
		verifyCmd(mk()),
		testCmd(mk()),
		statusCmd(mk()),
		notifyCmd(mk()),
		planCmd(mk()),
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func buildCmd(c *common, name, short string, seeds, models, tests bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			opts.Seeds, opts.Models = seeds, models
			opts.HTTP = seeds && models // build loads HTTP sources before what reads them
			return c.build(cmd.Context(), p, runner.Options{Compile: opts, FailFast: c.failFast, Tests: tests, Command: name, Argv: flagArgv(cmd)})
		},
	}
	c.projectFlags(cmd)
	c.selectFlags(cmd)
	if models {
		c.windowFlags(cmd)
		cmd.Flags().BoolVar(&c.failFast, "fail-fast", false, "start no new unit after the first failure")
	}
	threadsFlag(cmd, &c.threads, "units run at once (default: the target's threads, else [run] threads, else 4)")
	return cmd
}

// build runs the runner with the shared flags (threads, output, progress
// line) and turns a failed unit into exit code 1.
func (c *common) build(ctx context.Context, p *project.Project, ro runner.Options) error {
	ro.Threads = c.threads
	if ro.Threads == 0 {
		ro.Threads = p.ThreadsFor(ro.Compile.Target)
	}
	ro.Out = c.stdout
	ro.Trace, ro.AfterStep = c.trace, c.afterStep
	if f, ok := c.stderr.(*os.File); ok && isTerminal(f) {
		ro.Progress = f
	}
	if c.log != nil {
		ro.Out, ro.Progress = nil, nil
		ro.Observers = append(ro.Observers, c.log)
	}
	if ol := p.OpenLineage; ol != nil {
		ro.Compile.Lineage = true // the column lineage facet
		em := openlineage.New(openLineageConfig(p.Root, ol), c.stderr)
		defer em.Close()
		ro.Observers = append(ro.Observers, em)
	}
	res, err := runner.Build(ctx, p, ro)
	if err != nil {
		return err
	}
	if res.Interrupted() {
		return &interruptedError{}
	}
	if !res.OK() {
		return &failedError{}
	}
	return nil
}

func retryCmd(c *common) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "retry",
		Short: "finish the most recent run: every unit of its plan not yet done, at its --as-of",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			opts.Seeds, opts.Models, opts.HTTP = true, true, true
			return c.build(cmd.Context(), p, runner.Options{Compile: opts, Retry: true, Command: "retry", Argv: flagArgv(cmd)})
		},
	}
	c.projectFlags(cmd)
	threadsFlag(cmd, &c.threads, "units run at once (default: the target's threads, else [run] threads, else 4)")
	return cmd
}

func verifyCmd(c *common) *cobra.Command {
	var runs int
	var full bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "run each selected unit N times and prove the region it owns is identical after each run",
		Long: "verify runs each selected unit --runs times (default 2) and compares a fingerprint of the region it owns,\n" +
			"computed in the engine over every column and in any row order. A difference is printed with the first differing rows.\n" +
			"Without --partition/--start it verifies the newest partition of each partitioned model. --against-full-refresh also\n" +
			"rebuilds the selection and its ancestors from scratch in <schema>__idemc_verify, compares whole tables, then drops it.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			threads := c.threads
			if threads == 0 {
				threads = p.ThreadsFor(opts.Target)
			}
			ctx := cmd.Context()
			results, err := runner.Verify(ctx, p, runner.VerifyOptions{Compile: opts, Runs: runs, Threads: threads, AgainstFullRefresh: full, Trace: c.trace, AfterStep: c.afterStep})
			if err != nil {
				return err
			}
			bad := 0
			for _, r := range results {
				verdict := "identical"
				if !r.Identical {
					verdict = "DIFFERENT"
					bad++
				}
				fmt.Fprintf(c.stdout, "%-9s %-40s %s\n", verdict, r.Unit, strings.Join(r.Fingerprints, " | "))
				if r.Error != "" {
					fmt.Fprintf(c.stdout, "          error: %s\n", r.Error)
				}
				for _, d := range r.Diff {
					fmt.Fprintf(c.stdout, "          %s\n", d)
				}
			}
			fmt.Fprintf(c.stdout, "%d identical, %d different\n", len(results)-bad, bad)
			if bad > 0 {
				return &failedError{}
			}
			return nil
		},
	}
	c.projectFlags(cmd)
	c.selectFlags(cmd)
	cmd.Flags().StringVar(&c.partition, "partition", "", "verify exactly this partition")
	cmd.Flags().StringVar(&c.start, "start", "", "first partition of a range [start, end)")
	cmd.Flags().StringVar(&c.end, "end", "", "end of the range (exclusive)")
	cmd.Flags().StringVar(&c.asOf, "as-of", "", "logical time of the runs (default now)")
	cmd.Flags().IntVar(&runs, "runs", 2, "how many times each unit runs")
	cmd.Flags().BoolVar(&full, "against-full-refresh", false, "also compare with the selection rebuilt from scratch in a scratch schema")
	threadsFlag(cmd, &c.threads, "units run at once")
	return cmd
}

func testCmd(c *common) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "test",
		Short: "run every declared check over whole tables and tests/*.sql, read-only",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			results, err := runner.Test(ctx, p, opts)
			if err != nil {
				return err
			}
			if err := runner.WriteTestResults(p.Root, p.Name, results); err != nil {
				return err
			}
			failed, warned := 0, 0
			for _, t := range results {
				switch t.Status {
				case runner.CheckFail:
					failed++
				case runner.CheckWarn:
					warned++
				}
			}
			if c.log != nil {
				c.log.Tests(results, time.Now())
				c.log.TestsFinished(len(results)-failed-warned, failed, warned)
			} else {
				printTests(c.stdout, results)
				fmt.Fprintf(c.stdout, "%d passed, %d failed, %d warned\n", len(results)-failed-warned, failed, warned)
			}
			if failed > 0 {
				return &failedError{}
			}
			return nil
		},
	}
	c.projectFlags(cmd)
	c.selectFlags(cmd)
	return cmd
}

func statusCmd(c *common) *cobra.Command {
	var asJSON, outbox, drift bool
	var runID string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "show each unit's latest audit row: partitions × status",
		Long:  "status answers \"has 2026-07-30 been loaded?\": idemc status --select events_daily --partition 2026-07-30",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if outbox {
				return c.printOutbox(cmd, p, opts.Target, asJSON)
			}
			if drift {
				return c.printDrift(cmd, p, opts, asJSON)
			}
			if runID != "" {
				return c.printRun(cmd, p, opts, runID, asJSON)
			}
			rows, err := runner.Status(ctx, p, opts)
			if err != nil {
				return err
			}
			if rows == nil {
				rows = []runner.StatusRow{}
			}
			if c.log != nil {
				c.log.Result("status", rows)
				return nil
			}
			if asJSON {
				printJSON(c.stdout, "units", rows)
				return nil
			}
			if len(rows) == 0 {
				fmt.Fprintln(c.stdout, "no units have run yet for this selection")
				return nil
			}
			fmt.Fprintf(c.stdout, "%-28s %-13s %-10s %8s %7s  %-20s %s\n", "MODEL", "PARTITION", "STATUS", "ROWS", "ATTEMPT", "ENDED", "NOTE")
			for _, r := range rows {
				part := r.Partition
				if part == "" {
					part = "-"
				}
				n := "-"
				if r.Rows != nil {
					n = fmt.Sprint(*r.Rows)
				}
				att := "-"
				if r.Attempt > 0 {
					att = fmt.Sprint(r.Attempt)
				}
				note := r.Error
				if r.Status == "succeeded" && !r.Current {
					note = "code changed since: the next build reruns it"
				}
				note = oneLine(note, 80)
				fmt.Fprintf(c.stdout, "%-28s %-13s %-10s %8s %7s  %-20s %s\n", r.Model, part, r.Status, n, att, r.Ended, note)
			}
			return nil
		},
	}
	c.projectFlags(cmd)
	c.selectFlags(cmd)
	cmd.Flags().StringVar(&c.partition, "partition", "", "only this partition")
	cmd.Flags().StringVar(&c.start, "start", "", "partitions from (inclusive)")
	cmd.Flags().StringVar(&c.end, "end", "", "partitions to (exclusive)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&runID, "run", "", "show one run of idemc_runs: its command line, commit, files hash, outcome and how to run it again")
	cmd.Flags().BoolVar(&outbox, "outbox", false, "list the notify events not delivered yet, with their attempts and last error")
	cmd.Flags().BoolVar(&drift, "drift", false, "list the partitions whose latest attempt broke a [drift] rule: row count, median, ratio, rule, severity")
	return cmd
}

// oneLine fits a note into a table cell: its lines joined (a multi-line
// engine error must not break the table) and cut to at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return s
}

// printTests lists test results as text, one line each.
func printTests(w io.Writer, results []*runner.TestResult) {
	for _, t := range results {
		name := t.Path
		if t.Model != "" {
			name = t.Model + ": " + t.Path
		}
		fmt.Fprintf(w, "%-5s %s", t.Status, name)
		if t.Detail != "" {
			fmt.Fprintf(w, ": %s", t.Detail)
		}
		fmt.Fprintln(w)
	}
}

// ingestCmd loads the selected HTTP sources only (docs/http.md).
func ingestCmd(c *common) *cobra.Command {
	var maxRequests int
	cmd := &cobra.Command{
		Use:   "ingest",
		Short: "load the selected HTTP sources ([http.NAME]): only what changed, merged by primary key",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			if maxRequests < 0 {
				return &usageError{fmt.Sprintf("--max-requests must be at least 0 (0: no limit), not %d", maxRequests)}
			}
			if len(opts.Select) == 0 {
				for _, s := range p.HTTP {
					opts.Select = append(opts.Select, s.Name)
				}
				if len(opts.Select) == 0 {
					fmt.Fprintf(c.stdout, "no HTTP source: declare one as [http.NAME] in %s\n", project.FileName)
					return nil
				}
			}
			opts.HTTP = true
			return c.build(cmd.Context(), p, runner.Options{Compile: opts, FailFast: c.failFast, Command: "ingest", MaxRequests: maxRequests, Argv: flagArgv(cmd)})
		},
	}
	c.projectFlags(cmd)
	c.selectFlags(cmd)
	cmd.Flags().StringVar(&c.asOf, "as-of", "", "logical time of the run (default now): a since window never reads past it less its lag")
	cmd.Flags().BoolVar(&c.fullRefresh, "full-refresh", false, "forget the sources' ledgers and reload their tables from the first page")
	cmd.Flags().IntVar(&maxRequests, "max-requests", 0, "stop a source after this many requests, retries included (0: no limit)")
	threadsFlag(cmd, &c.threads, "units run at once (default [run] threads, or 4)")
	return cmd
}
