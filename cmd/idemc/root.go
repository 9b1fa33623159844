package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	_ "github.com/idemc/idemc/adapters/bigquery"
	_ "github.com/idemc/idemc/adapters/duckdb" // engines register themselves
	_ "github.com/idemc/idemc/adapters/mysql"
	_ "github.com/idemc/idemc/adapters/postgres"
	_ "github.com/idemc/idemc/adapters/snowflake"
	_ "github.com/idemc/idemc/adapters/spark"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/eventlog"
	"github.com/idemc/idemc/runner"
)

// Exit codes of DESIGN §10.
const (
	exitOK     = 0
	exitFailed = 1 // a unit or check failed
	exitBad    = 2 // bad usage, configuration or compile error: nothing written
)

// failedError carries exit code 1 (work ran and something failed).
type failedError struct{ msg string }

func (e *failedError) Error() string { return e.msg }

// usageError carries exit code 2 for bad flags.
type usageError struct{ msg string }

func (e *usageError) Error() string   { return e.msg }
func (e *usageError) Is(t error) bool { return t == diag.ErrBadInput }

// heapTarget and memoryLimit tune the collector (internal/gctune): while
// the live heap is small the heap may grow to 112 MiB before a cycle, and
// the runtime's memory stays under 210 MiB until the live heap passes
// half of that. 10,000 models, against GOGC=100: a warm compile 0.360 →
// 0.325 s; a fresh one 1.005 → 0.975 s and 279 → 266 MB resident at most
// (docs/benchmarks.md). GOGC or GOMEMLIMIT in the environment turn both
// off.
const (
	heapTarget  = 112 << 20
	memoryLimit = 210 << 20
)

// run is the whole command line, testable in process.
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(args, stdout, stderr, nil)
}

// runWith is run with a hook after every step of every unit: the fault
// trials' (main_faults.go, the tests' TestMain); the idemc users run has none.
func runWith(args []string, stdout, stderr io.Writer, afterStep runner.StepHook) int {
	var lg *eventlog.Log
	if logFormatOf(args) == "json" {
		lg = eventlog.New(stdout)
		out, errw := jsonOutputs(lg)
		defer out.Close()
		defer errw.Close()
		stdout, stderr = out, errw
	}
	root := newRoot(stdout, stderr, afterStep, lg)
	root.SetArgs(selectArgs(args))
	root.SetOut(stdout)
	root.SetErr(stderr)
	ctx, stop := interruptContext(stderr)
	defer stop()
	err := root.ExecuteContext(ctx)
	if lg == nil {
		return exitCode(ctx, err, stderr)
	}
	code := exitCode(ctx, err, io.Discard)
	if err != nil && err.Error() != "" {
		errorEvent(lg, err, code)
	}
	return code
}

// exitCode is the command's exit code; it prints the error.
func exitCode(ctx context.Context, err error, stderr io.Writer) int {
	switch {
	case err == nil && context.Cause(ctx) == errInterrupt:
		// Interrupted while planning a run that had nothing to do (or as
		// the last unit committed): a Ctrl-C never exits 0.
		fmt.Fprintln(stderr, "interrupted: nothing is left unfinished")
		return exitInterrupted
	case err == nil:
		return exitOK
	case errors.As(err, new(*interruptedError)):
		return exitInterrupted
	case context.Cause(ctx) == errInterrupt:
		// Stopped before the first unit (connecting, planning) or in a
		// read-only command: the error is the interrupt's doing.
		fmt.Fprintln(stderr, "interrupted: "+firstLine(err.Error()))
		return exitInterrupted
	case errors.As(err, new(*failedError)):
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(stderr, msg)
		}
		return exitFailed
	default:
		fmt.Fprintln(stderr, "error: "+strings.ReplaceAll(err.Error(), "\n", "\n  "))
		if errors.Is(err, diag.ErrBadInput) || isFlagError(err) {
			return exitBad
		}
		return exitFailed
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func isFlagError(err error) bool {
	m := err.Error()
	for _, p := range []string{"unknown flag", "unknown command", "flag needs an argument", "invalid argument", "unknown shorthand", "accepts ", "requires "} {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// common are the flags most commands share.
type common struct {
	projectDir  string
	target      string
	selectS     []string
	exclude     []string
	vars        string
	partition   string
	start, end  string
	asOf        string
	fullRefresh bool
	threads     int
	failFast    bool
	stdout      io.Writer
	stderr      io.Writer
	trace       io.Writer       // IDEMC_TRACE=1: each statement's duration
	afterStep   runner.StepHook // the fault trials' hook; nil for users
	log         *eventlog.Log   // --log-format json; nil for text
}

// traceTo returns where statement timings go: stderr with IDEMC_TRACE set.
func traceTo(stderr io.Writer) io.Writer {
	if os.Getenv("IDEMC_TRACE") == "" {
		return nil
	}
	return stderr
}

func newRoot(stdout, stderr io.Writer, afterStep runner.StepHook, lg *eventlog.Log) *cobra.Command {
	root := &cobra.Command{
		Use:           "idemc",
		Short:         "compile SQL models into idempotent writes and run them",
		Long:          "idemc compiles a folder of SQL models into idempotent writes (delete-insert, merge, partition overwrite)\nand runs them in dependency order, with declared checks inside each write's transaction and an audit row per unit.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	addLogFormatFlag(root)
	mk := func() *common {
		return &common{stdout: stdout, stderr: stderr, afterStep: afterStep, trace: traceTo(stderr), log: lg}
	}
	root.AddCommand(compileCmd(mk()), lintCmd(mk()), lsCmd(mk()), cleanCmd(mk()), docsCmd(mk()))
	root.AddCommand(initCmd(mk()), versionCmd(mk()), completionCmd(mk()))
	root.AddCommand(runnerCommands(mk)...)
	return root
}

func (c *common) projectFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.projectDir, "project", ".", "project folder (holding project.toml or dbt_project.yml)")
	cmd.Flags().StringVar(&c.target, "target", "", "target from project.toml (default: $IDEMC_TARGET or default_target)")
	cmd.Flags().StringVar(&c.vars, "vars", "", `variables as JSON, overriding [vars]: --vars '{"source_system": "app"}'`)
}

func (c *common) selectFlags(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&c.selectS, "select", "s", nil, "models to select: name, +name, name+, tag:x, path:models/x; space = union, comma = intersection")
	cmd.Flags().StringArrayVar(&c.exclude, "exclude", nil, "models to leave out (same syntax as --select)")
}

func (c *common) windowFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.partition, "partition", "", "run exactly this partition (2026-07-30, 2026-07-30T13, 2026-07, 2026)")
	cmd.Flags().StringVar(&c.start, "start", "", "first partition of a range [start, end)")
	cmd.Flags().StringVar(&c.end, "end", "", "end of the range (exclusive)")
	cmd.Flags().StringVar(&c.asOf, "as-of", "", "logical time of the run (default now): fixes windows and watermarks so a rerun reads the same data")
	cmd.Flags().BoolVar(&c.fullRefresh, "full-refresh", false, "rebuild incremental models from their start")
}

// load reads the project and turns flags into compile options.
func (c *common) load() (*project.Project, compiler.Options, error) {
	var opts compiler.Options
	// The load and compile caches live in target/. A dbt project is read
	// for the target: its config() calls may read target.* (the first
	// pass of dbt's two-pass render).
	opts.Target = cmp.Or(c.target, os.Getenv("IDEMC_TARGET"))
	cacheDir := filepath.Join(c.projectDir, "target")
	p, err := project.LoadFor(c.projectDir, cacheDir, opts.Target)
	if p != nil {
		for _, w := range p.Warnings { // once per kind, not an error (a dbt project's metrics, …)
			fmt.Fprintf(c.stderr, "warning: %v\n", w)
		}
	}
	if err != nil {
		return nil, opts, err
	}
	// Decoded while the graph's nodes are made, once the load is done with
	// both CPUs (beside the load cache's decoding they were busy), and
	// not at all when the load failed.
	opts.CacheAhead = compiler.ReadCacheAhead(cacheDir)
	opts.Cache = filepath.Join(p.Root, "target")
	opts.Select, opts.Exclude = c.selectS, c.exclude
	opts.Partition, opts.Start, opts.End = c.partition, c.start, c.end
	opts.FullRefresh = c.fullRefresh
	if c.partition != "" && (c.start != "" || c.end != "") {
		return nil, opts, &usageError{"use --partition or --start/--end, not both"}
	}
	if c.asOf != "" {
		t, err := partition.ParseTime(c.asOf)
		if err != nil {
			return nil, opts, &usageError{"--as-of: " + err.Error()}
		}
		opts.AsOf = t
	} else {
		opts.AsOf = time.Now().UTC().Truncate(time.Second)
	}
	if c.vars != "" {
		if err := json.Unmarshal([]byte(c.vars), &opts.Vars); err != nil {
			return nil, opts, &usageError{fmt.Sprintf("--vars must be a JSON object such as '{\"source_system\": \"app\"}': %v", err)}
		}
		for k, v := range opts.Vars {
			if f, ok := v.(float64); ok && f == float64(int64(f)) {
				opts.Vars[k] = int64(f)
			}
		}
	}
	if usesMethod(opts.Select, "result:") || usesMethod(opts.Exclude, "result:") {
		opts.Results = latestResults(p.Root) // only then: the file can be large
	}
	opts.Models = true
	opts.Log = c.templateLog()
	return p, opts, nil
}

// templateLog is where templates' log() messages go: log(msg, info=True)
// to stderr (stdout may be --log-format json), the others only with
// IDEMC_DEBUG set. Renders run in parallel: one line at a time.
func (c *common) templateLog() func(msg string, info bool) {
	debug := os.Getenv("IDEMC_DEBUG") != ""
	var mu sync.Mutex
	return func(msg string, info bool) {
		if !info && !debug {
			return
		}
		mu.Lock()
		fmt.Fprintf(c.stderr, "log: %s\n", msg)
		mu.Unlock()
	}
}
