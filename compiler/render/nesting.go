package render

import (
	"fmt"
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
// MaxNesting, before gonja sees it.
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
	return nil
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
