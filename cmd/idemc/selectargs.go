package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemc/idemc/compiler"
)

// selectArgs lets --select and --exclude take several words, as dbt's do
// (--select a b --exclude c): the words after one, up to the next flag,
// become one --select each. Only those two flags take such words, so the
// other positional arguments (init DIR, completion bash) are untouched.
func selectArgs(args []string) []string {
	out := make([]string, 0, len(args))
	flag, first := "", false // the flag whose words these are; its first word not seen yet
	for i, a := range args {
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--select" || a == "-s" || a == "--exclude":
			flag, first = a, true
		case strings.HasPrefix(a, "--select=") || strings.HasPrefix(a, "--exclude="):
			flag, first = a[:strings.IndexByte(a, '=')], false
		case strings.HasPrefix(a, "-"):
			flag = ""
		case flag != "" && first:
			first = false
		case flag != "":
			out = append(out, flag) // a further word: one more --select
		}
		out = append(out, a)
	}
	return out
}

// latestResults are each model's outcome in the last run recorded in
// target/run_results.json, for result: selectors: fail when a check or a
// test on it failed, error when it failed otherwise, skipped, warn or
// success. The worst outcome of a model's units wins.
func latestResults(root string) map[string]string {
	b, err := os.ReadFile(filepath.Join(root, "target", "run_results.json"))
	if err != nil {
		return nil
	}
	var rr struct {
		Units []struct {
			Model, Status string
			Checks        []struct{ Status string }
		}
		Tests []struct{ Model, Status string }
	}
	if json.Unmarshal(b, &rr) != nil {
		return nil
	}
	rank := map[string]int{"success": 1, "warn": 2, "skipped": 3, "error": 4, "fail": 5}
	out := map[string]string{}
	set := func(model, r string) {
		if model != "" && rank[r] > rank[out[model]] {
			out[model] = r
		}
	}
	for _, u := range rr.Units {
		r := map[string]string{"succeeded": "success", "warned": "warn", "skipped": "skipped", "failed": "error"}[u.Status]
		for _, c := range u.Checks {
			if r == "error" && c.Status == "fail" {
				r = "fail"
			}
		}
		set(u.Model, r)
	}
	for _, t := range rr.Tests {
		if t.Status == "fail" {
			set(t.Model, "fail")
		}
	}
	return out
}

// usesMethod reports whether a selection uses a method ("state:").
func usesMethod(sel []string, method string) bool {
	for _, s := range sel {
		if strings.Contains(s, method) {
			return true
		}
	}
	return false
}

// statelessSelection refuses state: in a command that reads no warehouse
// (compile, lint, ls): it would have nothing to compare with.
func statelessSelection(o compiler.Options) error {
	if usesMethod(o.Select, "state:") || usesMethod(o.Exclude, "state:") {
		return &usageError{"state:modified and state:new compare with the target's audit table: use them with build, run, plan, test or status"}
	}
	return nil
}
