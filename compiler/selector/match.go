package selector

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/idemc/idemc/compiler/suggest"
)

// match evaluates an atom's method and value, without graph operators.
func (ix *index) match(a atom) (set, error) {
	out := make(set)
	glob := hasMeta(a.value)
	switch a.method {
	case "":
		switch {
		case a.value == "*":
			for _, name := range ix.names {
				out[name] = struct{}{}
			}
		case glob:
			for _, name := range ix.names {
				if ok, _ := path.Match(a.value, name); ok {
					out[name] = struct{}{}
				}
			}
			if len(out) == 0 {
				return nil, errors.New("selector: no model matches " + strconv.Quote(a.value))
			}
		default:
			if _, ok := ix.known[a.value]; !ok {
				return nil, notFound("no model named", a.value, ix.names)
			}
			out[a.value] = struct{}{}
		}
	case "tag":
		var tags []string
		for _, n := range ix.nodes {
			for _, t := range n.Tags {
				tags = append(tags, t)
				if t == a.value {
					out[n.Name] = struct{}{}
				} else if glob {
					if ok, _ := path.Match(a.value, t); ok {
						out[n.Name] = struct{}{}
					}
				}
			}
		}
		if len(out) == 0 {
			slices.Sort(tags)
			return nil, notFound("no model has tag", a.value, slices.Compact(tags))
		}
	case "source", "state", "result":
		return ix.matchAttr(a, glob)
	case "path":
		var paths []string
		for _, n := range ix.nodes {
			p := n.Path
			if matchPath(a.value, p, glob) {
				out[n.Name] = struct{}{}
			}
			// Candidates for a suggestion: the file and its directories.
			for ; p != "." && p != "/" && p != ""; p = path.Dir(p) {
				paths = append(paths, p)
			}
		}
		if len(out) == 0 {
			slices.Sort(paths)
			return nil, notFound("no model under path", a.value, slices.Compact(paths))
		}
	default: // config.<key>
		return ix.matchAttr(a, glob)
	}
	return out, nil
}

// matchAttr evaluates source:, config.<key>:, state: and result:. A
// state: or result: that matches nothing selects nothing (nothing changed,
// nothing failed): that is an answer, not a typo.
func (ix *index) matchAttr(a atom, glob bool) (set, error) {
	out := make(set)
	var seen []string
	key := strings.TrimPrefix(a.method, "config.")
	for _, n := range ix.nodes {
		var vals []string
		switch a.method {
		case "source":
			vals = n.Sources
		case "state":
			vals = []string{n.State}
		case "result":
			vals = []string{n.Result}
		default:
			if v, ok := n.Config[key]; ok {
				vals = []string{v}
			}
		}
		for _, v := range vals {
			seen = append(seen, v)
			ok := v == a.value || a.method == "source" && strings.HasPrefix(v, a.value+".")
			if !ok && glob {
				ok, _ = path.Match(a.value, v)
			}
			if ok {
				out[n.Name] = struct{}{}
			}
		}
	}
	if len(out) == 0 && (a.method == "source" || strings.HasPrefix(a.method, "config.")) {
		slices.Sort(seen)
		seen = slices.Compact(seen)
		err := notFound("no model has "+a.method, a.value, seen)
		if !strings.Contains(err.Error(), "did you mean") && len(seen) > 0 {
			err = fmt.Errorf("%v (the models have %s)", err, strings.Join(seen[:min(len(seen), 10)], ", "))
		}
		return nil, err
	}
	return out, nil
}

// matchPath reports whether file is pattern or lies under the directory
// pattern; a glob pattern may match the file or any of its directories.
func matchPath(pattern, file string, glob bool) bool {
	if pattern == "." {
		return true
	}
	if !glob {
		return file == pattern || strings.HasPrefix(file, pattern+"/")
	}
	for p := file; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if ok, _ := path.Match(pattern, p); ok {
			return true
		}
	}
	return false
}

// notFound builds `selector: <what> "x" (did you mean "y"?)`.
func notFound(what, value string, candidates []string) error {
	msg := "selector: " + what + " " + strconv.Quote(value)
	if !hasMeta(value) {
		if sg := suggest.Closest(value, candidates); sg != "" {
			msg += " (did you mean " + strconv.Quote(sg) + "?)"
		}
	}
	return errors.New(msg)
}
