package render

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxNesting bounds how deep brackets inside one template tag, and blocks
// ({% if %}, {% for %}, …) inside one another, may go. gonja's parser and
// renderer recurse once per level, and a Go stack overflow is a fatal
// runtime error no recover() catches: 100,000 nested brackets kill the
// process with a stack dump. Real templates stay far below this.
const MaxNesting = 200

// opensBlock reports whether a tag opens a block an {% end… %} closes.
func opensBlock(word string) bool {
	switch word {
	case "if", "for", "macro", "call", "filter", "with", "block", "raw", "autoescape":
		return true
	}
	return false
}

// checkNesting returns a positioned error when text nests deeper than
// MaxNesting, or holds a recursive macro, before gonja sees it.
func checkNesting(path, text string) error {
	blocks := 0
	for i := 0; i+1 < len(text); i++ {
		if text[i] != '{' || (text[i+1] != '{' && text[i+1] != '%') {
			continue
		}
		closer := "}}"
		if text[i+1] == '%' {
			closer = "%}"
		}
		start := i + 2
		end := strings.Index(text[start:], closer)
		if end < 0 {
			return nil // unclosed: gonja's own error says so
		}
		end += start
		tag := text[start:end]
		if off, ok := bracketsTooDeep(tag); ok {
			return nestingError(path, text, start+off, "brackets")
		}
		if closer == "%}" {
			word := strings.Fields(strings.Trim(tag, "-+ \t\r\n"))
			switch {
			case len(word) == 0:
			case strings.HasPrefix(word[0], "end"):
				blocks--
			case opensBlock(word[0]):
				if blocks++; blocks > MaxNesting {
					return nestingError(path, text, i, "blocks")
				}
			}
		}
		i = end + 1
	}
	return checkRecursion([]File{{Path: path, Text: text}})
}

// bracketsTooDeep reports the offset in tag where (, [ or { nesting first
// exceeds MaxNesting, skipping string literals.
func bracketsTooDeep(tag string) (int, bool) {
	depth := 0
	for j := 0; j < len(tag); j++ {
		switch c := tag[j]; c {
		case '\'', '"':
			for j++; j < len(tag) && tag[j] != c; j++ {
				if tag[j] == '\\' {
					j++
				}
			}
		case '(', '[', '{':
			if depth++; depth > MaxNesting {
				return j, true
			}
		case ')', ']', '}':
			depth--
		}
	}
	return 0, false
}

func nestingError(path, text string, off int, what string) error {
	line, col := lineCol(text, off)
	return &Error{Path: path, Line: line, Col: col, Msg: fmt.Sprintf(
		"template nests %s deeper than %d levels; split the expression into {%% set %%} steps or macros", what, MaxNesting)}
}

var (
	macroDef = regexp.MustCompile(`\{%[-+]?\s*macro\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	endMacro = regexp.MustCompile(`\{%[-+]?\s*endmacro\b`)
	callName = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
)

type macroAt struct {
	path  string
	line  int
	calls []string
}

// checkRecursion refuses macros that call themselves, directly or through
// others: gonja has no recursion bound, and a runaway recursion overflows
// the Go stack (fatal, no recover) instead of failing the model. The calls
// are read from the macro bodies' tags, so a name in a string counts too.
func checkRecursion(files []File) error {
	macros := map[string]*macroAt{}
	var order []string
	for _, f := range files {
		for _, loc := range macroDef.FindAllStringSubmatchIndex(f.Text, -1) {
			name := f.Text[loc[2]:loc[3]]
			body := f.Text[loc[1]:]
			if end := endMacro.FindStringIndex(body); end != nil {
				body = body[:end[0]]
			}
			m := &macroAt{path: f.Path}
			m.line, _ = lineCol(f.Text, loc[0])
			for _, c := range callName.FindAllStringSubmatch(tagsOf(body), -1) {
				m.calls = append(m.calls, c[1])
			}
			if _, dup := macros[name]; !dup {
				order = append(order, name)
			}
			macros[name] = m
		}
	}
	state := map[string]int{} // 1 on the path, 2 done
	var path []string
	var visit func(n string) []string
	visit = func(n string) []string {
		switch state[n] {
		case 1:
			for i, p := range path {
				if p == n {
					return append(append([]string{}, path[i:]...), n)
				}
			}
		case 2:
			return nil
		}
		state[n] = 1
		path = append(path, n)
		for _, c := range macros[n].calls {
			if macros[c] != nil {
				if cyc := visit(c); cyc != nil {
					return cyc
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = 2
		return nil
	}
	for _, n := range order {
		if cyc := visit(n); cyc != nil {
			m := macros[cyc[0]]
			return &Error{Path: m.path, Line: m.line, Col: 1, Msg: fmt.Sprintf(
				"macro %s calls itself (%s): recursion has no depth bound in templates and a runaway one crashes idemc; write it without recursion (a loop, or one macro per level)",
				cyc[0], strings.Join(cyc, " → "))}
		}
	}
	return nil
}

// tagsOf keeps the text inside {{ }} and {% %} tags, where calls are.
func tagsOf(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "{")
		if i < 0 || i+1 >= len(s) {
			return b.String()
		}
		closer := ""
		switch s[i+1] {
		case '{':
			closer = "}}"
		case '%':
			closer = "%}"
		}
		if closer == "" {
			s = s[i+1:]
			continue
		}
		j := strings.Index(s[i+2:], closer)
		if j < 0 {
			b.WriteString(s[i+2:])
			return b.String()
		}
		b.WriteString(s[i+2 : i+2+j])
		b.WriteByte(' ')
		s = s[i+2+j+2:]
	}
}
