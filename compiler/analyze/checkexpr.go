package analyze

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A check expression (expect = ["sum(amount) >= 0"]) is pasted into a
// check query between parentheses, on every engine. CheckExpr proves it
// stays one expression there: the scan below is the guarantee (no text can
// leave the parentheses or start another statement on any engine's lexer),
// and the TiDB parser, when it reads the expression, adds that it is one
// value and not a list or a query tail. Engine-only syntax (x::int,
// FILTER) does not parse in TiDB and is accepted on the scan alone, as a
// model that does not parse still compiles (DESIGN §6).

// CheckExpr reports why expr is not exactly one SQL expression, or nil.
func (p *Parser) CheckExpr(expr string) error {
	if strings.TrimSpace(expr) == "" {
		return fmt.Errorf("it is empty")
	}
	commas, err := scanExpr(expr)
	if err != nil {
		return err
	}
	ok, err := p.oneField(expr)
	if err != nil {
		return err
	}
	if !ok && commas {
		return fmt.Errorf("a comma outside parentheses makes it a list; write one expression per entry")
	}
	return nil
}

// scanExpr walks expr with the strictest reading of every engine's lexer
// and reports whether a comma sits outside parentheses.
func scanExpr(s string) (topComma bool, err error) {
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			end, err := quotedEnd(s, i)
			if err != nil {
				return false, err
			}
			i = end
		case c == '`':
			// PostgreSQL reads ` as an operator character, so the text
			// between backticks is SQL to it: only a plain name is safe.
			j := i + 1
			for j < len(s) && s[j] != '`' && (isIdentChar(s[j]) || s[j] == ' ') && s[j] != '$' {
				j++
			}
			if j >= len(s) || s[j] != '`' {
				return false, fmt.Errorf("a backquoted name at byte %d holds more than letters, digits and _; quote names with double quotes", i+1)
			}
			i = j
		case c == ';':
			return false, fmt.Errorf("';' at byte %d ends the statement; a check is one expression", i+1)
		case c == '-' && i+1 < len(s) && s[i+1] == '-', c == '/' && i+1 < len(s) && s[i+1] == '*', c == '#':
			return false, fmt.Errorf("a comment at byte %d (--, /* or #) would hide the rest of the check query; remove it", i+1)
		case c == '$':
			return false, fmt.Errorf("'$' at byte %d starts a dollar-quoted string or parameter on some engines; quote a name that holds it", i+1)
		case c == '\\':
			return false, fmt.Errorf("a backslash at byte %d is read differently by the engines; remove it", i+1)
		case c == 0:
			return false, fmt.Errorf("a NUL byte at byte %d; remove it", i+1)
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return false, fmt.Errorf("')' at byte %d closes a parenthesis it did not open; balance the parentheses", i+1)
			}
			depth--
		case c == ',' && depth == 0:
			topComma = true
		}
	}
	if depth > 0 {
		return false, fmt.Errorf("%d parentheses left open; balance the parentheses", depth)
	}
	return topComma, nil
}

// quotedEnd returns the offset of the quote closing the string or quoted
// name opened at i. A doubled quote continues it on every engine; a
// backslash escapes on MariaDB only, so a backslash is refused rather than
// read one way.
func quotedEnd(s string, i int) (int, error) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			return 0, fmt.Errorf("a backslash in the quoted text at byte %d is an escape on MariaDB and a plain character elsewhere; write the text without it", j+1)
		case 0:
			return 0, fmt.Errorf("a NUL byte at byte %d; remove it", j+1)
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j, nil
		}
	}
	return 0, fmt.Errorf("the quote at byte %d is never closed", i+1)
}

// oneField parses "SELECT <expr>" and reports whether the parser read it
// (false: engine-only syntax, nothing known). A read that is not one plain
// select field (a list, an alias, FROM or a set operation) is an error.
func (p *Parser) oneField(expr string) (parsed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			p.reset()
			parsed, err = false, nil
		}
	}()
	stmts, _, perr := p.p.ParseSQL("SELECT " + expr)
	if perr != nil {
		return false, nil
	}
	if len(stmts) != 1 {
		return true, fmt.Errorf("it holds %d statements; a check is one expression", len(stmts))
	}
	sel, ok := stmts[0].(*ast.SelectStmt)
	if !ok {
		return true, fmt.Errorf("it reads as a query tail (UNION, …); a check is one expression")
	}
	switch {
	case sel.Fields == nil || len(sel.Fields.Fields) != 1:
		return true, fmt.Errorf("it is a list of expressions; write one expression per entry")
	case sel.Fields.Fields[0].WildCard != nil:
		return true, fmt.Errorf("'*' is not a boolean expression")
	case sel.Fields.Fields[0].AsName.O != "":
		return true, fmt.Errorf("it names its value (AS %s); remove the alias", sel.Fields.Fields[0].AsName.O)
	case sel.From != nil || sel.Where != nil || sel.GroupBy != nil || sel.Having != nil ||
		sel.OrderBy != nil || sel.Limit != nil || sel.WindowSpecs != nil:
		return true, fmt.Errorf("it holds a query clause (FROM, WHERE, …); put a query in parentheses: (SELECT …)")
	}
	return true, nil
}
