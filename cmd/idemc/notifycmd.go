package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/notify"
)

func notifyCmd(c *common) *cobra.Command {
	var follow bool
	var interval, wait, lease time.Duration
	cmd := &cobra.Command{
		Use:   "notify",
		Short: "derive events from the audit table into idemc_outbox and deliver them ([[notify]]), after publish",
		Long: "notify is the side-effect observer: it never runs inside a build. Each event has a deterministic id\n" +
			"(sent as Idempotency-Key and webhook-id), is delivered at least once and marked delivered; a failing\n" +
			"endpoint keeps its events pending (idemc status --outbox). --follow keeps watching. See docs/notify.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			o := notify.Options{Compile: opts, Out: c.stdout, Wait: wait, Lease: lease}
			if lease <= 0 {
				return &usageError{"--lease must be positive, such as 2m"}
			}
			if follow {
				if interval <= 0 {
					return &usageError{"--interval must be positive, such as 10s"}
				}
				return notify.Follow(cmd.Context(), p, o, interval)
			}
			sum, err := notify.Pass(cmd.Context(), p, o)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, sum)
			if sum.Failed > 0 {
				return &failedError{fmt.Sprintf("%d deliveries failed; their events stay pending and are tried again with backoff", sum.Failed)}
			}
			return nil
		},
	}
	c.projectFlags(cmd)
	cmd.Flags().BoolVar(&follow, "follow", false, "keep watching: a pass every --interval")
	cmd.Flags().DurationVar(&interval, "interval", 10*time.Second, "time between passes with --follow")
	cmd.Flags().DurationVar(&wait, "wait", time.Minute, "how long a pass waits for a build that holds a DuckDB file")
	cmd.Flags().DurationVar(&lease, "lease", 2*time.Minute, "how long a claimed event is this observer's: another observer sends it after that if this one died (keep it above the 30 s delivery timeout)")
	return cmd
}

// printOutbox is idemc status --outbox.
func (c *common) printOutbox(cmd *cobra.Command, p *project.Project, target string, asJSON bool) error {
	evs, err := notify.Pending(cmd.Context(), p, target)
	if err != nil {
		return err
	}
	if evs == nil {
		evs = []notify.PendingEvent{}
	}
	switch {
	case c.log != nil:
		c.log.Result("status", evs)
	case asJSON:
		printJSON(c.stdout, "events", evs)
	case len(evs) == 0:
		fmt.Fprintln(c.stdout, "outbox: every event is delivered")
	default:
		fmt.Fprintf(c.stdout, "%-20s %-20s %-28s %-13s %8s  %-20s %s\n", "NOTIFY", "EVENT", "MODEL", "PARTITION", "ATTEMPTS", "NEXT TRY", "LAST ERROR")
		for _, e := range evs {
			fmt.Fprintf(c.stdout, "%-20s %-20s %-28s %-13s %8d  %-20s %s\n", e.Notify, e.Event, e.Model, e.Partition, e.Attempts, e.NextTry, oneLine(e.LastError, 80))
		}
	}
	return nil
}
