package render

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

type unknownRef struct{ name string }

func (u *unknownRef) Error() string { return "ref " + u.name }

type unknownSource struct{ src, table string }

func (u *unknownSource) Error() string { return "source " + u.src + "." + u.table }

type unknownVar struct{ name string }

func (u *unknownVar) Error() string { return "var " + u.name }

// positioned turns the errors found while rendering into positioned ones.
func positioned(path, text string, c *Context, errs []error) error {
	var out []error
	for _, err := range errs {
		switch x := err.(type) {
		case *unknownRef:
			line, col := find(text, "ref", x.name)
			msg := fmt.Sprintf("ref(%q): no model or seed named %q", x.name, x.name)
			if c.SuggestRef != nil {
				if s := c.SuggestRef(x.name); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", s)
				}
			}
			out = append(out, &Error{Path: path, Line: line, Col: col, Msg: msg})
		case *unknownSource:
			line, col := find(text, "source", x.src)
			out = append(out, &Error{Path: path, Line: line, Col: col, Msg: fmt.Sprintf("source(%q, %q) is not declared: add it to [sources.%s] tables in project.toml", x.src, x.table, x.src)})
		case *unknownVar:
			line, col := find(text, "var", x.name)
			out = append(out, &Error{Path: path, Line: line, Col: col, Msg: fmt.Sprintf("var(%q) is not set: add it to [vars] in project.toml, pass --vars '{\"%s\": …}' or give a default: var(%q, …)", x.name, x.name, x.name)})
		case *compileError:
			out = append(out, &Error{Path: path, Line: x.line, Col: firstCol(text, x.line), Msg: "compilation error: " + x.msg})
		case *missingEnv:
			line, col := find(text, "env_var", x.name)
			out = append(out, &Error{Path: path, Line: line, Col: col, Msg: fmt.Sprintf("env_var(%q): %s is not set in the environment: set it, or give a default: env_var(%q, \"…\")", x.name, x.name, x.name)})
		case *packageRef:
			line, col := find(text, "ref", x.pkg)
			out = append(out, &Error{Path: path, Line: line, Col: col, Msg: fmt.Sprintf("ref(%q, %q): packages are not supported: only this project's models and seeds can be referenced, as ref(%q)", x.pkg, x.model, x.model)})
		default:
			out = append(out, &Error{Path: path, Msg: err.Error()})
		}
	}
	return errors.Join(out...)
}

// find locates fn("arg" in the template text for an error position.
func find(text, fn, arg string) (int, int) {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(fn) + `\(\s*["']` + regexp.QuoteMeta(arg) + `["']`)
	loc := re.FindStringIndex(text)
	if loc == nil {
		return 0, 0
	}
	return lineCol(text, loc[0])
}

func lineCol(text string, off int) (int, int) {
	line := 1 + strings.Count(text[:off], "\n")
	col := off - strings.LastIndexByte(text[:off], '\n')
	return line, col
}

var gonjaPos = regexp.MustCompile(`[Ll]ine:? ?(\d+)(?:[^\d]+[Cc]ol(?:umn)?:? ?(\d+))?`)

// templateError positions a gonja error and trims its noise.
func templateError(path, text string, err error) error {
	msg := err.Error()
	e := &Error{Path: path}
	if m := gonjaPos.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Col, _ = strconv.Atoi(m[2])
	}
	// gonja repeats the whole source in parse errors; keep the reason only.
	if i := strings.Index(msg, "failed to parse template '"); i >= 0 {
		if j := strings.LastIndex(msg, "': "); j > i {
			msg = msg[j+3:]
		}
	}
	msg = strings.TrimPrefix(msg, "unable to execute template: ")
	e.Msg = "template error: " + msg
	return e
}

// firstCol is the column of the first non-blank character of line (1 when
// the line is unknown or blank).
func firstCol(text string, line int) int {
	if line <= 0 {
		return 0
	}
	lines := strings.SplitN(text, "\n", line+1)
	if line > len(lines) {
		return 1
	}
	l := lines[line-1]
	return len(l) - len(strings.TrimLeft(l, " \t")) + 1
}
