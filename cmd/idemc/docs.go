package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemc/idemc/internal/docsite"
)

func docsCmd(c *common) *cobra.Command {
	var serve string
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "write a static docs site to target/docs: models, graph, column lineage, partition status, runs",
		Long: "docs writes target/docs/: index.html (the model graph, a partition × status heatmap per partitioned model,\n" +
			"the recent runs) and a page per model (SQL, settings, checks, columns with their types and lineage).\n" +
			"It reads the target read-only for types, the audit table and idemc_runs; when the target cannot be read\n" +
			"the site is still written, without them. The files work from file:// with no network; --serve ADDR\n" +
			"also serves them over HTTP until Ctrl-C.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, opts, err := c.load()
			if err != nil {
				return err
			}
			if serve != "" {
				if _, _, err := net.SplitHostPort(serve); err != nil {
					return &usageError{fmt.Sprintf("--serve %q: want HOST:PORT, such as 127.0.0.1:8080 (%v)", serve, err)}
				}
			}
			site, err := docsite.Build(cmd.Context(), p, opts)
			if err != nil {
				return err
			}
			if site.Warehouse != "" {
				fmt.Fprintf(c.stderr, "warning: the site shows no column types, partition status or runs: %s\n", site.Warehouse)
			}
			dir := filepath.Join(p.Root, "target", "docs")
			n, err := docsite.Write(dir, site)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "wrote %d files to %s: open %s\n", n, dir, filepath.Join(dir, "index.html"))
			if serve == "" {
				return nil
			}
			return serveDocs(cmd.Context(), dir, serve, c.stdout, nil)
		},
	}
	c.projectFlags(cmd)
	cmd.Flags().StringVar(&c.asOf, "as-of", "", "end of the partition heatmaps: partitions before it with no audit row are missing (default now)")
	cmd.Flags().StringVar(&serve, "serve", "", "then serve the site over HTTP on ADDR (127.0.0.1:8080) until Ctrl-C")
	return cmd
}

// serveDocs serves dir on addr until ctx ends; ready, when set, is told
// the address it listens on (":0" picks a port).
func serveDocs(ctx context.Context, dir, addr string, out io.Writer, ready func(string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &usageError{fmt.Sprintf("--serve %s: %v", addr, err)}
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(out, "serving %s on http://%s/ (Ctrl-C stops)\n", dir, ln.Addr())
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	fmt.Fprintln(out, "stopped serving")
	return &interruptedError{}
}
