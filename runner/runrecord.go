package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

// Run records (DESIGN §9, §14): idemc_runs keeps, in its options JSON,
// what it takes to see exactly what a run did: the command line, the
// vars, whether the git tree was clean, and a hash of every project file.

// provenance is what a run records beside its planning options.
type provenance struct {
	Argv        []string `json:"argv,omitempty"`
	GitDirty    *bool    `json:"git_dirty,omitempty"`
	ProjectHash string   `json:"project_hash,omitempty"`
}

// projectHash is a digest of project.toml (or a dbt project's YAML) and
// every model, macro, seed and test file, by path: the files a run
// compiled. A model's file hash comes from its load (the load cache keeps
// it), so a run does not read every model file again; the other files are
// few and are read here.
func projectHash(p *project.Project) string {
	paths := append([]string{}, p.SettingsFiles()...)
	sums := map[string][32]byte{}
	for _, m := range p.Models {
		paths = append(paths, m.Path)
		if m.FileSum != ([32]byte{}) {
			sums[m.Path] = m.FileSum
		}
	}
	for _, f := range p.Macros {
		paths = append(paths, f.Path)
	}
	for _, s := range p.Seeds {
		paths = append(paths, s.Path)
	}
	for _, f := range p.Tests {
		paths = append(paths, f.Path)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, path := range paths {
		sum, ok := sums[path]
		if !ok {
			b, err := os.ReadFile(filepath.Join(p.Root, filepath.FromSlash(path)))
			if err != nil {
				b = []byte("unreadable: " + err.Error())
			}
			sum = sha256.Sum256(b)
		}
		fmt.Fprintf(h, "%s %x\n", path, sum)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// gitDirty reports whether the project's files differ from the commit
// (tracked files outside target/); nil when git or a repository is not
// there.
func gitDirty(root string) *bool {
	// target/ holds idemc's own output (and the demo's DuckDB file): its
	// changes are not changes to the project.
	cmd := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)target")
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Run() != nil {
		return nil
	}
	dirty := out.Len() > 0
	return &dirty
}

// RunRecord is one idemc_runs row as status --run shows it.
type RunRecord struct {
	RunID       string         `json:"run_id"`
	Command     string         `json:"command"`
	Argv        []string       `json:"argv,omitempty"`
	Target      string         `json:"target"`
	AsOf        string         `json:"as_of"`
	GitCommit   string         `json:"git_commit,omitempty"`
	GitDirty    *bool          `json:"git_dirty,omitempty"`
	ProjectHash string         `json:"project_hash,omitempty"`
	Vars        map[string]any `json:"vars,omitempty"`
	Started     string         `json:"started_at"`
	Ended       string         `json:"ended_at,omitempty"`
	Outcome     string         `json:"outcome"`
	RetryOf     string         `json:"retry_of,omitempty"`
	Succeeded   int64          `json:"succeeded"`
	Failed      int64          `json:"failed"`
	Skipped     int64          `json:"skipped"`
	// Reproduce is the commands that run the same plan again: the commit,
	// then the command line at the run's logical time.
	Reproduce []string `json:"reproduce"`
}

// ReadRun reads one run's record from idemc_runs.
func ReadRun(ctx context.Context, p *project.Project, opts compiler.Options, runID string) (*RunRecord, error) {
	c, err := openExisting(ctx, p, opts.Target)
	if errors.Is(err, ErrNoWarehouse) {
		return nil, fmt.Errorf("no run %s: nothing has run on this target yet", runID)
	}
	if err != nil {
		return nil, err
	}
	defer c.Close()
	st := stateOf(p, opts.Target)
	if _, ok, err := c.sess.Relation(ctx, st.Runs); err != nil || !ok {
		return nil, fmt.Errorf("no run %s: nothing has run on this target yet", runID)
	}
	_, rows, err := c.sess.Query(ctx, sqlgen.RunQuery(c.ad.Dialect, st, runID), 1)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no run %s in idemc_runs: see idemc status for the runs of each unit", runID)
	}
	r := rows[0]
	rec := &RunRecord{RunID: r[0], Command: r[1], Target: r[3], AsOf: r[4], GitCommit: nullText(r[5]), Started: r[6],
		Ended: nullText(r[7]), Outcome: nullText(r[8]), RetryOf: nullText(r[9])}
	fmt.Sscan(r[10], &rec.Succeeded)
	fmt.Sscan(r[11], &rec.Failed)
	fmt.Sscan(r[12], &rec.Skipped)
	var o struct {
		runOptions
		provenance
	}
	if err := json.Unmarshal([]byte(r[2]), &o); err == nil {
		rec.Argv, rec.GitDirty, rec.ProjectHash, rec.Vars = o.Argv, o.GitDirty, o.ProjectHash, o.Vars
	}
	rec.Reproduce = reproduce(rec)
	return rec, nil
}

func nullText(s string) string {
	if s == "NULL" {
		return ""
	}
	return s
}

// reproduce is the commands to run what the run ran: check out its
// commit, then its command line with its logical time (--as-of replaced).
func reproduce(rec *RunRecord) []string {
	var out []string
	if rec.GitCommit != "" {
		out = append(out, "git checkout "+rec.GitCommit)
	}
	args := []string{"idemc"}
	argv := rec.Argv
	if len(argv) == 0 {
		argv = []string{rec.Command}
	}
	for i := 0; i < len(argv); i++ {
		switch a := argv[i]; {
		case a == "--as-of" || a == "--target":
			i++ // replaced below
		case strings.HasPrefix(a, "--as-of=") || strings.HasPrefix(a, "--target="):
		default:
			args = append(args, shellQuote(a))
		}
	}
	asOf := rec.AsOf
	if t, err := time.Parse("2006-01-02 15:04:05", strings.TrimSuffix(asOf, "+00")); err == nil {
		asOf = t.Format(time.RFC3339)
	}
	args = append(args, "--target", shellQuote(rec.Target), "--as-of", asOf)
	return append(out, strings.Join(args, " "))
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
