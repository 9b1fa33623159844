package runner

import (
	"sort"

	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// checkHTTPEnv reports every ${VAR} that an HTTP source of the plan needs
// and the environment does not set, at the source's line in project.toml,
// before the run connects: a missing token is bad input (exit 2, nothing
// written), not a unit failing at its first request. The values are only
// looked up here; they are expanded again when the source is fetched.
func checkHTTPEnv(p *project.Project, pl *plan.Plan) error {
	var errs diag.List
	for _, u := range pl.Units {
		src := p.HTTPSourceNamed(u.Model)
		if !u.HTTP || src == nil {
			continue
		}
		settings := map[string]string{"url": src.URL, "cache": src.Cache}
		for k, v := range src.Headers {
			settings["headers."+k] = v
		}
		keys := make([]string, 0, len(settings))
		for k := range settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			// expandEnv is the fetch's own expansion: the same message, here
			// at the source's line and before anything runs.
			if _, err := expandEnv(settings[k], k, src.Name, map[string]string{}); err != nil {
				errs.Add(project.FileName, src.Line, 0, "%v before the run", err)
			}
		}
	}
	return errs.Err()
}
