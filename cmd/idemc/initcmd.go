package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemc/idemc/internal/scaffold"
)

func initCmd(c *common) *cobra.Command {
	var engine string
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "create a working project in DIR (default .): project.toml, a seed, a view, a partitioned model with checks, a test",
		Long: "init writes a new project into DIR, which must be new or empty (init never overwrites a file):\n" +
			"project.toml with comments and a target for --engine, seeds/raw_orders.csv, a staging view, a model\n" +
			"partitioned by day with checks, and a singular test. On duckdb `idemc build` then works at once; the other\n" +
			"engines read their credentials from the environment variables project.toml names.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			wrote, err := scaffold.Write(scaffold.Options{Dir: dir, Engine: engine, Now: time.Now()})
			if errors.Is(err, scaffold.ErrNotEmpty) || err != nil && strings.HasPrefix(err.Error(), "unknown engine") {
				return &usageError{err.Error()}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "created a %s project in %s: %s\n", engine, dir, strings.Join(wrote, ", "))
			cd := ""
			if dir != "." {
				cd = "cd " + dir + " && "
			}
			fmt.Fprintf(c.stdout, "next: %sidemc build && idemc status && idemc docs\n", cd)
			return nil
		},
	}
	cmd.Flags().StringVar(&engine, "engine", "duckdb", "the target's engine: "+strings.Join(scaffold.Engines, ", "))
	return cmd
}

func versionCmd(c *common) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print idemc's module version, VCS commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, _ := debug.ReadBuildInfo()
			fmt.Fprintln(c.stdout, versionText(info))
			return nil
		},
	}
}

// versionText is "idemc VERSION commit HASH[-dirty] (TIME) GO"; a binary
// built without module or VCS information says so.
func versionText(info *debug.BuildInfo) string {
	if info == nil {
		return "idemc (no build information)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	out := "idemc " + version
	if rev != "" {
		out += " commit " + rev + dirty
		if when != "" {
			out += " (" + when + ")"
		}
	} else {
		out += " commit unknown (built without VCS information)"
	}
	return out + " " + info.GoVersion
}

func completionCmd(c *common) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "print a shell completion script",
		Long: "completion prints a completion script for the shell:\n" +
			"  bash: source <(idemc completion bash)\n" +
			"  zsh:  idemc completion zsh > \"${fpath[1]}/_idemc\"\n" +
			"  fish: idemc completion fish > ~/.config/fish/completions/idemc.fish",
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(c.stdout, true)
			case "zsh":
				return root.GenZshCompletion(c.stdout)
			default:
				return root.GenFishCompletion(c.stdout, true)
			}
		},
	}
}
