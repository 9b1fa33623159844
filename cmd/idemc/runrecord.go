package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

// flagArgv is the command line as cobra read it: the command, then every
// flag given, in a canonical spelling (--select a --select b), for the
// run record.
func flagArgv(cmd *cobra.Command) []string {
	argv := []string{cmd.Name()}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				argv = append(argv, "--"+f.Name, v)
			}
			return
		}
		if f.Value.Type() == "bool" {
			argv = append(argv, "--"+f.Name)
			return
		}
		argv = append(argv, "--"+f.Name, f.Value.String())
	})
	return argv
}

// printRun is idemc status --run ID: the run's record and the commands
// that run it again.
func (c *common) printRun(cmd *cobra.Command, p *project.Project, opts compiler.Options, id string, asJSON bool) error {
	rec, err := runner.ReadRun(cmd.Context(), p, opts, id)
	if err != nil {
		return err
	}
	switch {
	case c.log != nil:
		c.log.Result("status", rec)
		return nil
	case asJSON:
		printJSON(c.stdout, "run", rec)
		return nil
	}
	w := c.stdout
	fmt.Fprintf(w, "run       %s\n", rec.RunID)
	fmt.Fprintf(w, "command   idemc %s\n", strings.Join(rec.Argv, " "))
	fmt.Fprintf(w, "target    %s\nas of     %s\n", rec.Target, rec.AsOf)
	commit := rec.GitCommit
	switch {
	case commit == "":
		commit = "(not in a git repository)"
	case rec.GitDirty != nil && *rec.GitDirty:
		commit += " (with uncommitted changes: the checkout below is not exactly what ran)"
	}
	fmt.Fprintf(w, "commit    %s\nfiles     %s\n", commit, rec.ProjectHash)
	if len(rec.Vars) > 0 {
		b, _ := json.Marshal(rec.Vars)
		fmt.Fprintf(w, "vars      %s\n", b)
	}
	fmt.Fprintf(w, "started   %s\nended     %s\noutcome   %s: %d succeeded, %d failed, %d skipped\n",
		rec.Started, rec.Ended, rec.Outcome, rec.Succeeded, rec.Failed, rec.Skipped)
	if rec.RetryOf != "" {
		fmt.Fprintf(w, "retry of  %s\n", rec.RetryOf)
	}
	fmt.Fprintln(w, "\nto run it again:")
	for _, r := range rec.Reproduce {
		fmt.Fprintf(w, "  %s\n", r)
	}
	return nil
}
