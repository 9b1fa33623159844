package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/eventlog"
	"github.com/idemc/idemc/internal/openlineage"
)

// logFormat is --log-format: text (the default) or json, one event object
// per line on stdout (docs/events.md).
type logFormat struct{ v *string }

func (f logFormat) String() string {
	if f.v == nil || *f.v == "" {
		return "text"
	}
	return *f.v
}

func (f logFormat) Set(s string) error {
	if s != "text" && s != "json" {
		return fmt.Errorf("want text or json")
	}
	*f.v = s
	return nil
}

func (logFormat) Type() string { return "format" }

// logFormatOf finds --log-format in args before cobra parses them: the
// writers every command prints to are chosen before the commands exist. A
// value cobra then refuses (--log-format xml) is a usage error.
func logFormatOf(args []string) string {
	for i, a := range args {
		switch {
		case a == "--":
			return "text"
		case a == "--log-format=json":
			return "json"
		case a == "--log-format" && i+1 < len(args) && args[i+1] == "json":
			return "json"
		}
	}
	return "text"
}

// addLogFormatFlag declares --log-format on every command.
func addLogFormatFlag(root *cobra.Command) {
	var v string
	root.PersistentFlags().Var(logFormat{&v}, "log-format", "text, or json: one event object per line on stdout (docs/events.md)")
}

// jsonOutputs returns the writers of JSON mode: what a command prints as
// text becomes log events (stdout's lines info, stderr's warn), all of them
// on stdout.
func jsonOutputs(lg *eventlog.Log) (stdout, stderr io.WriteCloser) {
	return lg.Lines("info"), lg.Lines("warn")
}

// errorEvent ends a failed command in JSON mode: its message, exit code and
// positioned problems.
func errorEvent(lg *eventlog.Log, err error, code int) {
	var ds []eventlog.Diagnostic
	var list diag.List
	var one *diag.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = diag.List{one}
	}
	for _, e := range list {
		if e.Path != "" { // an unpositioned error is the message alone
			ds = append(ds, eventlog.Diagnostic{File: e.Path, Line: e.Line, Column: e.Col, Message: e.Msg})
		}
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	lg.Error(msg, code, ds)
}

// printJSON prints a command's --json output: an object with the
// schema_version of idemc's JSON and the list under key.
func printJSON(w io.Writer, key string, list any) {
	b, _ := json.MarshalIndent(map[string]any{"schema_version": eventlog.SchemaVersion, key: list}, "", "  ")
	fmt.Fprintln(w, string(b))
}

// openLineageConfig resolves [openlineage]: ${VAR} in the url from the
// environment, the file relative to the project.
func openLineageConfig(root string, o *project.OpenLineage) openlineage.Config {
	url, _ := project.ExpandVars(o.URL, os.LookupEnv) // an unset variable: the POST fails with a warning
	cfg := openlineage.Config{URL: url, Namespace: o.Namespace}
	if o.File != "" {
		cfg.File = o.File
		if !filepath.IsAbs(cfg.File) {
			cfg.File = filepath.Join(root, cfg.File)
		}
		_ = os.MkdirAll(filepath.Dir(cfg.File), 0o755)
	}
	return cfg
}
