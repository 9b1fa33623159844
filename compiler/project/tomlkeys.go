package project

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/suggest"
)

func reportUnknown(errs *diag.List, file, text string, lineOffset int, k toml.Key) {
	line := keyLine(text, k)
	if line > 0 {
		line += lineOffset
	} else if lineOffset > 0 {
		line = lineOffset + 1 // the header's first line
	}
	last := k[len(k)-1]
	var valid []string
	switch {
	case len(k) == 1 && lineOffset == 0 && file == FileName:
		valid = topKeys
	case len(k) >= 2 && k[len(k)-2] == "watermark":
		valid = watermarkKeys
	case len(k) == 3 && k[0] == "sources":
		valid = []string{"schema", "database", "tables"}
	case len(k) == 2 && k[0] == "seeds":
		valid = []string{"schema"}
	case len(k) == 3 && k[0] == "seeds":
		valid = seedKeys
	case len(k) == 3 && k[0] == "http":
		valid = httpKeys
	case len(k) == 4 && k[0] == "http" && k[2] == "since":
		valid = sinceKeys
	case len(k) == 2 && k[0] == "run":
		valid = []string{"threads"}
	case len(k) == 2 && k[0] == "notify":
		valid = notifyKeys
	case len(k) == 2 && k[0] == "openlineage":
		valid = []string{"url", "file", "namespace"}
	default:
		valid = configKeys
	}
	name := strconv.Quote(k.String())
	if strings.Contains(k.String(), `"`) {
		name = k.String() // models."staging/*".x reads better unescaped
	}
	errs.Add(file, line, 0, "unknown key %s%s", name, didYouMean(last, valid))
}

func didYouMean(name string, valid []string) string {
	if s := suggest.Closest(name, valid); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return fmt.Sprintf("; valid keys: %s", strings.Join(valid, ", "))
}

// keyLine finds the line (1-based) where a dotted key is set in TOML text, by
// tracking [table] headers. It returns 0 when not found.
func keyLine(text string, k toml.Key) int {
	return keyLineIn(strings.Split(text, "\n"), k)
}

// keyLineIn is keyLine on a text split into lines.
func keyLineIn(lines []string, k toml.Key) int {
	return scanKeyLines(lines).find(k)
}

// keyLines are a TOML text's lines as keyLine reads them, worked out once
// for the many keys of one text (a model header's every key was looked up
// by trimming and splitting every line again: ~0.08 s of CPU in a fresh
// 10,000-model load).
type keyLines []keyLineInfo

type keyLineInfo struct {
	line  int      // 1-based
	table bool     // a [table] header, whose name is key
	key   []string // the table's name, or the assignment's whole key
	value string   // an assignment's text from its '='
}

func scanKeyLines(lines []string) keyLines {
	var out keyLines
	var table []string
	for i, raw := range lines {
		l := strings.TrimSpace(stripComment(raw))
		if strings.HasPrefix(l, "[") {
			table = splitDotted(strings.Trim(l, "[] \t"))
			out = append(out, keyLineInfo{line: i + 1, table: true, key: table})
			continue
		}
		eq := strings.IndexByte(l, '=')
		if eq <= 0 {
			continue
		}
		full := append(append([]string{}, table...), splitDotted(strings.TrimSpace(l[:eq]))...)
		out = append(out, keyLineInfo{line: i + 1, key: full, value: l[eq:]})
	}
	return out
}

// find is the line (1-based) where k is set, 0 when it is not.
func (kl keyLines) find(k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	tableLine := 0
	for _, e := range kl {
		key := e.key
		if e.table {
			if equalKeys(key, k) {
				return e.line
			}
			if tableLine == 0 && len(key) > len(k) && equalKeys(key[:len(k)], k) {
				tableLine = e.line // [k.sub] defines k implicitly
			}
			continue
		}
		if equalKeys(key, k) || (len(key) > len(k) && equalKeys(key[:len(k)], k)) {
			return e.line
		}
		// inline tables: key = { a = 1 } sets k = key.a
		if len(key) == len(k)-1 && equalKeys(key, k[:len(k)-1]) && strings.Contains(e.value, k[len(k)-1]) {
			return e.line
		}
	}
	return tableLine
}

// stripComment removes a # comment that is not inside a quoted string.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return line[:i]
		}
	}
	return line
}

func splitDotted(s string) []string {
	parts := strings.Split(s, ".")
	out := parts[:0]
	for i := 0; i < len(parts); i++ {
		p := strings.TrimSpace(parts[i])
		if strings.HasPrefix(p, `"`) && !strings.HasSuffix(p, `"`) || p == `"` {
			// a quoted key containing dots
			j := i + 1
			for j < len(parts) && !strings.HasSuffix(parts[j], `"`) {
				j++
			}
			if j < len(parts) {
				p = strings.Join(parts[i:j+1], ".")
				i = j
			}
		}
		out = append(out, strings.Trim(strings.TrimSpace(p), `"'`))
	}
	return out
}

func equalKeys(a []string, b toml.Key) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
