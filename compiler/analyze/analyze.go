// Package analyze parses one rendered model SELECT with the TiDB parser and runs the lint
// rules of DESIGN §6 on it.
//
// The input is a model rendered for analysis: ref() and source() are plain (possibly
// schema-qualified) names and start/end/partition are typed literals, so the parser sees the
// common ANSI/MySQL subset. A model the parser cannot read still compiles; it gets an L000
// note instead of the parse-based rules.
//
// A Parser holds one TiDB parser and is not safe for concurrent use: create one per goroutine
// and reuse it across models.
package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/plan"
)

// Severity and Finding live in diag, so that a plan can hold findings
// without importing the analyzer.
type (
	Severity = diag.Severity
	Finding  = diag.Finding
)

// Severities, from least to most severe. Errors block build and compile.
const (
	Info    = diag.SeverityInfo
	Warning = diag.SeverityWarning
	Error   = diag.SeverityError
)

// Input is a model rendered for analysis: ref()/source() became plain identifiers (possibly
// schema-qualified `raw.staging_events`), start/end/partition became literals such as
// DATE '2026-07-01' or TIMESTAMP '2026-07-01 00:00:00'. The leading header comment has been
// replaced by blank lines so line numbers match the source file.
type Input struct {
	Path                  string
	SQL                   string
	Materialized          string // view, table, incremental, ephemeral
	Strategy              string // delete_insert, merge, insert_overwrite, append, ""
	PartitionBy           string
	UniqueKey             []string
	AllowAppend           bool
	AllowNondeterministic []string // function names (lowercase) allowed for L001
	StrictParse           bool
	UsesWindow            bool // the template referenced start/end/partition/watermark_start/watermark_end
	Lineage               bool // also trace each output column's inputs (Result.Lineage)
	// Line, Col is the position of the model's first SELECT line, used for model-level
	// findings (L004/L005/L006 when no better position). When Line is 0 the first token of
	// SQL is used.
	Line, Col int
}

// Result of analysing one model.
type Result struct {
	Findings []Finding // sorted by line, col, rule
	Parsed   bool
	// Columns are the output column names of the top-level SELECT (its first branch for a
	// UNION) in order, lower-cased as written: the alias, or the column name of a plain column
	// reference, "" for an unnamed expression, and "*" or "t.*" for a wildcard item.
	// nil if not parsed.
	Columns []string
	Star    bool // the SELECT list (of any top-level branch) has * or t.*
	// Lineage is, per output column, the columns of the relations it reads (lineage.go); nil
	// unless Input.Lineage, if not parsed, or when the first branch selects a wildcard.
	Lineage []plan.ColumnLineage
}

// HasErrors reports whether any finding has Error severity.
func (r Result) HasErrors() bool {
	for _, f := range r.Findings {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

// draft is a finding positioned by byte offset (-1: the model position).
type draft struct {
	off  int
	rule string
	sev  Severity
	msg  string
}

// Analyze parses in.SQL and runs the lint rules. It never panics on any input.
func (p *Parser) Analyze(in Input) (res Result) {
	defer func() {
		if r := recover(); r != nil { // a bug here must not stop a build: report it as L000
			var drafts []draft
			if d, ok := appendRule(in); ok {
				drafts = append(drafts, d)
			}
			drafts = append(drafts, notAnalysed(in, &parseError{off: -1, reason: fmt.Sprintf("internal error: %v", r)}))
			res = Result{Findings: place(in, in.SQL, drafts)}
		}
	}()
	text := blankComments(in.SQL)
	keys := keyColumns(in.UniqueKey)
	var drafts []draft
	if d, ok := appendRule(in); ok {
		drafts = append(drafts, d)
	}
	ptext := normalize(text)
	f, perr := p.parse(ptext, keys, in.Lineage)
	loc := locator{text: ptext}
	if perr != nil {
		if perr.syntax {
			perr.off, perr.reason = syntaxReason(text, perr.off)
		}
		drafts = append(drafts, notAnalysed(in, perr))
	} else {
		res.Parsed = true
		res.Columns = f.columns
		res.Star = f.star
		res.Lineage = f.lineage
		drafts = lint(drafts, in, keys, f, &loc)
	}
	if len(drafts) == 0 {
		return res
	}
	res.Findings = place(in, text, drafts)
	return res
}

// place turns drafts into sorted findings with line and column numbers of in.SQL; text is
// in.SQL with comments blanked.
func place(in Input, text string, drafts []draft) []Finding {
	lines := lineStarts(in.SQL)
	mLine, mCol := in.Line, in.Col
	if mLine <= 0 {
		mLine, mCol = position(in.SQL, lines, firstToken(text))
	} else if mCol <= 0 {
		mCol = 1
	}
	out := make([]Finding, len(drafts))
	for i, d := range drafts {
		f := Finding{Path: in.Path, Rule: d.rule, Severity: d.sev, Message: d.msg, Line: mLine, Col: mCol}
		if d.off >= 0 && d.off <= len(in.SQL) {
			f.Line, f.Col = position(in.SQL, lines, d.off)
		}
		if f.Rule == "L000" { // its message names its own position
			f.Message += " at " + strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Col)
		}
		out[i] = f
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Rule, b.Rule))
	})
	return out
}

// lineStarts returns the byte offset of the start of every line of s.
func lineStarts(s string) []int {
	starts := make([]int, 1, 64)
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// position converts a byte offset into a 1-based line and a 1-based character column.
func position(s string, starts []int, off int) (line, col int) {
	off = min(max(off, 0), len(s))
	i, found := slices.BinarySearch(starts, off)
	if !found {
		i--
	}
	return i + 1, utf8.RuneCountInString(s[starts[i]:off]) + 1
}

// keyColumns returns the distinct plain column names of a unique_key setting.
func keyColumns(names []string) []string {
	var out []string
	for _, n := range names {
		if c, ok := columnName(n); ok && !hasColumn(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// normalizeName lower-cases a name and strips identifier quotes.
func normalizeName(n string) string {
	n = strings.TrimSpace(n)
	if len(n) >= 2 {
		switch {
		case n[0] == '"' && n[len(n)-1] == '"', n[0] == '`' && n[len(n)-1] == '`', n[0] == '[' && n[len(n)-1] == ']':
			return strings.ToLower(n[1 : len(n)-1])
		}
	}
	return strings.ToLower(n)
}

// --- SQL text helpers (no parser): comments, words and positions ---

// blankComments returns sql with every -- line comment and /* */ block comment (and a leading
// byte order mark) replaced by spaces (newlines kept), so offsets are unchanged. The TiDB lexer only treats "-- " (with a
// space) as a comment and executes /*! */ bodies; the engines treat both as comments.
// An unterminated block comment is left for the parser to report.
func blankComments(sql string) string {
	var b []byte
	if strings.HasPrefix(sql, "\ufeff") { // a byte order mark
		b = blank(b, sql, 0, 3)
	}
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i)
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				end = len(sql)
			} else {
				end += i
			}
			b = blank(b, sql, i, end)
			i = end
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				i = len(sql)
				break
			}
			end += i + 4
			b = blank(b, sql, i, end)
			i = end
		default:
			i++
		}
	}
	if b == nil {
		return sql
	}
	return string(b)
}

func blank(b []byte, sql string, from, to int) []byte {
	if b == nil {
		b = []byte(sql)
	}
	for i := from; i < to; i++ {
		if b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
	return b
}

// normalize rewrites, without moving any offset, the ANSI constructs the TiDB parser does
// not read but whose details no rule needs: CAST(x AS type) (and TRY_CAST, SAFE_CAST) becomes
// (x), IS [NOT] DISTINCT FROM becomes != or <=>, FULL [OUTER] JOIN becomes LEFT [OUTER] JOIN,
// and NULLS FIRST/LAST goes. Engine-only syntax (::, QUALIFY, ...) is left to fail.
func normalize(text string) string {
	var b []byte
	set := func(from int, repl string, to int) {
		if b == nil {
			b = []byte(text)
		}
		n := copy(b[from:to], repl)
		for i := from + n; i < to; i++ {
			if b[i] != '\n' && b[i] != '\r' {
				b[i] = ' '
			}
		}
	}
	scanWords(text, func(s, e int) bool {
		if s > 0 && text[s-1] == '.' {
			return true
		}
		switch w := text[s:e]; {
		case len(w) != 2 && len(w) != 4 && len(w) != 5 && len(w) != 8 && len(w) != 9:
		case strings.EqualFold(w, "cast"), strings.EqualFold(w, "try_cast"), strings.EqualFold(w, "safe_cast"):
			open := skipSpace(text, e)
			if open >= len(text) || text[open] != '(' {
				return true
			}
			if as, closing := castParts(text, open); as >= 0 {
				set(s, "", e)
				set(as, "", closing)
			}
		case strings.EqualFold(w, "is"):
			w1s, w1e := nextWord(text, e)
			not := strings.EqualFold(text[w1s:w1e], "not")
			ds, de := w1s, w1e
			if not {
				ds, de = nextWord(text, w1e)
			}
			if !strings.EqualFold(text[ds:de], "distinct") {
				return true
			}
			fs, fe := nextWord(text, de)
			if !strings.EqualFold(text[fs:fe], "from") {
				return true
			}
			if not {
				set(s, "<=>", fe)
			} else {
				set(s, "!=", fe)
			}
		case strings.EqualFold(w, "full"):
			ws, we := nextWord(text, e)
			if w := text[ws:we]; strings.EqualFold(w, "outer") || strings.EqualFold(w, "join") {
				set(s, "LEFT", e)
			}
		case strings.EqualFold(w, "nulls"):
			ws, we := nextWord(text, e)
			if w := text[ws:we]; strings.EqualFold(w, "first") || strings.EqualFold(w, "last") {
				set(s, "", we)
			}
		}
		return true
	})
	if b == nil {
		return text
	}
	return string(b)
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f') {
		i++
	}
	return i
}

// nextWord returns the identifier or keyword starting at the first non-blank byte at or after
// i (an empty range if something else is there).
func nextWord(s string, i int) (int, int) {
	i = skipSpace(s, i)
	j := i
	if j < len(s) && isIdentStart(s[j]) {
		for j++; j < len(s) && isIdentChar(s[j]); j++ {
		}
	}
	return i, j
}

// castParts finds, for the parenthesis at open, the last AS at its top level and the closing
// parenthesis; as is -1 when either is missing.
func castParts(s string, open int) (as, closing int) {
	as, depth := -1, 0
	for i := open; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(s, i)
			continue
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return as, i
			}
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			if depth == 1 && j-i == 2 && strings.EqualFold(s[i:j], "as") {
				as = i
			}
			i = j
			continue
		case c >= '0' && c <= '9':
			for i++; i < len(s) && isIdentChar(s[i]); i++ {
			}
			continue
		}
		i++
	}
	return -1, -1
}

// skipQuoted returns the offset just after the quoted string or identifier starting at i,
// following the TiDB lexer: a doubled quote continues it, and so does a backslash escape in
// '...' and "...".
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if q != '`' {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

// scanWords calls fn with the byte range of every identifier or keyword of sql outside
// strings, quoted identifiers and comments (sql has its -- and /* */ comments blanked; # is a
// comment to the TiDB lexer). fn returns false to stop.
func scanWords(sql string, fn func(start, end int) bool) {
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i)
		case c == '#':
			if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(sql)
			}
		case c >= '0' && c <= '9':
			for i++; i < len(sql) && (isIdentChar(sql[i]) || sql[i] == '.'); i++ {
			}
		case isIdentStart(c):
			j := i + 1
			for j < len(sql) && isIdentChar(sql[j]) {
				j++
			}
			if !fn(i, j) {
				return
			}
			i = j
		default:
			i++
		}
	}
}

// firstToken is the offset of the first non-blank byte of the (comment-blanked) text.
func firstToken(text string) int {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
		default:
			return i
		}
	}
	return 0
}

// isWordAt reports whether the word w (ASCII, lower case) is at offset off of s, with no
// identifier characters on either side.
func isWordAt(s string, off int, w string) bool {
	if off < 0 || off+len(w) > len(s) || !strings.EqualFold(s[off:off+len(w)], w) {
		return false
	}
	if off > 0 && isIdentChar(s[off-1]) {
		return false
	}
	return off+len(w) == len(s) || !isIdentChar(s[off+len(w)])
}

// locator finds the text positions the AST does not give.
type locator struct {
	text   string
	limits []int // offsets of LIMIT keywords, built on first use
	built  bool
}

// limitOffsets returns the offsets of the LIMIT keywords in text order (not after a '.',
// where a reserved word can be a column name).
func (l *locator) limitOffsets() []int {
	if !l.built {
		l.built = true
		scanWords(l.text, func(s, e int) bool {
			if e-s == 5 && strings.EqualFold(l.text[s:e], "limit") && (s == 0 || l.text[s-1] != '.') {
				l.limits = append(l.limits, s)
			}
			return true
		})
	}
	return l.limits
}

// words returns the offsets of the word w (case-insensitive) in the text.
func (l *locator) words(w string) []int {
	var out []int
	scanWords(l.text, func(s, e int) bool {
		if e-s == len(w) && strings.EqualFold(l.text[s:e], w) {
			out = append(out, s)
		}
		return true
	})
	return out
}

// called reports whether the word at off (of length n) is followed by an opening parenthesis.
func (l *locator) called(off, n int) bool {
	for i := off + n; i >= 0 && i < len(l.text); i++ {
		switch l.text[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '(':
			return true
		}
		return false
	}
	return false
}

// syntaxReason describes a syntax error the parser reported at offset off of text: the text
// there, and a hint when it is well-known engine-only syntax. It returns the offset to report,
// which moves back to an engine-only keyword the parser swallowed as an alias (QUALIFY, FILTER).
func syntaxReason(text string, off int) (int, string) {
	tok := nearText(text, off)
	if tok == "" {
		return off, "syntax error at end of input"
	}
	if (tok[0] == '\'' || tok[0] == '"') && skipQuoted(text, off) == len(text) {
		return off, "unterminated string"
	}
	if strings.HasPrefix(tok, "::") {
		return off, `syntax error near "` + tok + `" (:: casts are engine-specific; CAST(x AS type) is portable)`
	}
	if tok[0] == '.' && off > 0 && isIdentChar(text[off-1]) {
		return off, `syntax error near "` + tok + `" (three-part names are engine-specific)`
	}
	if w := leadingWord(tok); engineOnly[w] {
		return off, `syntax error near "` + tok + `" (` + strings.ToUpper(w) + " is engine-specific syntax)"
	}
	prev, prevOff := "", -1
	scanWords(text[:off], func(s, e int) bool {
		prev, prevOff = text[s:e], s
		return true
	})
	if w := strings.ToLower(prev); engineOnly[w] {
		return prevOff, `syntax error near "` + prev + `" (` + strings.ToUpper(w) + " is engine-specific syntax)"
	}
	return off, `syntax error near "` + tok + `"`
}

// nearText is the text at off up to the next blank, at most 32 bytes (whole characters).
func nearText(sql string, off int) string {
	if off < 0 || off >= len(sql) {
		return ""
	}
	s := sql[off:]
	end := 0
	for end < len(s) && end < 32 {
		c := s[end]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || end > 0 && (c == ',' || c == ';' || c == ')') {
			break
		}
		_, size := utf8.DecodeRuneInString(s[end:])
		if end+size > 32 {
			break
		}
		end += size
	}
	return s[:end]
}

// engineOnly are keywords of engine dialects the parser does not read.
var engineOnly = map[string]bool{
	"qualify": true, "exclude": true, "replace": true, "filter": true, "flatten": true,
	"pivot": true, "unpivot": true,
}

func leadingWord(s string) string {
	i := 0
	for i < len(s) && isIdentChar(s[i]) {
		i++
	}
	return strings.ToLower(s[:i])
}
