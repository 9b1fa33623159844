package seed

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxErrors is how many problems Parse reports for one file before it
// summarizes the rest: a file with a systematic problem (a wrong separator)
// would otherwise print one line per row.
const MaxErrors = 10

// Parse reads a seed file: a header line naming the columns, then one
// record per line (RFC 4180: a value holding a comma, a quote or a line
// break is quoted, and a quote inside it is doubled). types holds the kinds
// declared in column_types, by column name (matched ignoring case); names
// the header lacks are ignored here (the caller reports them where they
// were written). Every other column's kind is inferred from its values.
//
// Errors are positioned in the file and say what to do; when there are
// any, the table is nil.
func Parse(data []byte, types map[string]Kind) (*Table, []*Error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 BOM is not part of the first name
	if e := checkEncoding(data); e != nil {
		return nil, []*Error{e}
	}
	if e := checkLineEnds(data); e != nil {
		return nil, []*Error{e}
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1 // field counts are checked here, to report every bad row
	header, err := r.Read()
	if err == io.EOF {
		return nil, []*Error{{Line: 1, Msg: "the file is empty: a seed starts with a header line naming its columns (id,name,...)"}}
	}
	if err != nil {
		return nil, []*Error{parseError(err, data)}
	}
	p := &parser{}
	p.checkHeader(header)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	t := &Table{Columns: make([]Column, len(header))}
	for i, name := range header {
		t.Columns[i].Name = name
		t.Columns[i].Kind, t.Columns[i].Declared = lookup(types, name)
	}
	records, lines := p.readRecords(r, len(header), data)
	p.typeColumns(t, records)
	t.Rows = p.convert(t, records, lines)
	if len(p.errs) > 0 {
		return nil, p.finish()
	}
	return t, nil
}

type parser struct {
	errs    []*Error
	dropped int // errors beyond MaxErrors
}

func (p *parser) add(line, col int, format string, args ...any) {
	if len(p.errs) >= MaxErrors {
		p.dropped++
		return
	}
	p.errs = append(p.errs, &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// finish appends the summary of the errors not shown.
func (p *parser) finish() []*Error {
	if p.dropped > 0 {
		last := p.errs[len(p.errs)-1]
		p.errs = append(p.errs, &Error{Line: last.Line, Msg: fmt.Sprintf("%d more errors after this line are not shown; fix these and run again", p.dropped)})
	}
	return p.errs
}

// checkHeader requires a name for every column, unique ignoring case
// (engines compare column names without regard to case).
func (p *parser) checkHeader(header []string) {
	seen := map[string]int{}
	for i, name := range header {
		if strings.TrimSpace(name) == "" {
			p.add(1, 0, "column %d of the header has no name: name every column in the first line (a trailing comma adds an unnamed column)", i+1)
			continue
		}
		key := strings.ToLower(name)
		if prev, ok := seen[key]; ok {
			p.add(1, 0, "column %q appears twice in the header (columns %d and %d): rename one; names must differ ignoring case", name, prev+1, i+1)
			continue
		}
		seen[key] = i
	}
}

// readRecords reads every record, keeping the line each starts on. A row
// with the wrong number of fields is reported and left out (nil), so the
// remaining rows are still checked; a quoting error stops the file, since
// what follows it cannot be split reliably.
func (p *parser) readRecords(r *csv.Reader, width int, data []byte) ([][]string, []int) {
	var records [][]string
	var lines []int
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return records, lines
		}
		if err != nil {
			e := parseError(err, data)
			p.add(e.Line, e.Col, "%s", e.Msg)
			return records, lines
		}
		line, _ := r.FieldPos(0)
		if len(rec) != width {
			hint := "quote values that contain commas"
			if len(rec) < width {
				hint = "every row needs a field for every column; leave a field empty for NULL"
			}
			p.add(line, 0, "%d fields, header has %d (%s)", len(rec), width, hint)
			rec = nil
		}
		records = append(records, rec)
		lines = append(lines, line)
	}
}

// typeColumns infers the kind of every column that has none declared.
func (p *parser) typeColumns(t *Table, records [][]string) {
	for j := range t.Columns {
		if t.Columns[j].Kind != "" {
			continue
		}
		all, seen := fitAll, false
		for _, rec := range records {
			if rec == nil || rec[j] == "" {
				continue
			}
			seen = true
			if all = fits(rec[j], all); all == 0 {
				break // text: no need to read further
			}
		}
		t.Columns[j].Kind = infer(all, seen)
	}
}

// convert types every value; a value that is not of its column's declared
// kind is an error at its line.
func (p *parser) convert(t *Table, records [][]string, lines []int) [][]any {
	rows := make([][]any, 0, len(records))
	width := len(t.Columns)
	cells := make([]any, len(records)*width) // one allocation for every row's values
	for i, rec := range records {
		if rec == nil {
			continue
		}
		row := cells[i*width : (i+1)*width : (i+1)*width]
		for j, v := range rec {
			if v == "" {
				continue // NULL
			}
			k := t.Columns[j].Kind
			if k == Text {
				row[j] = v
				continue
			}
			if dp, ds, ok := k.Decimal(); ok {
				d, err := ParseDecimal(v, dp, ds)
				if err != nil {
					p.add(lines[i], 0, "column %s: %v (column_types declares %s; fix the value, leave it empty for NULL, or widen the type)", t.Columns[j].Name, err, k)
					continue
				}
				row[j] = d
				continue
			}
			x, ok := convert(v, k)
			if !ok {
				p.add(lines[i], 0, "column %s: %q is not a %s (column_types declares it; fix the value, leave it empty for NULL, or declare the column text)", t.Columns[j].Name, v, k)
				continue
			}
			row[j] = x
		}
		rows = append(rows, row)
	}
	return rows
}

// parseError turns encoding/csv's error into a positioned message that
// says how to fix the quoting.
// A quote left open is told apart from a stray one by parity: from the
// start of the record to the end of the file, the quotes of well-formed
// fields pair up, so an odd count means a field never closes.
func parseError(err error, data []byte) *Error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return &Error{Line: 1, Msg: err.Error()}
	}
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return &Error{Line: pe.Line, Col: pe.Column, Msg: `a " inside an unquoted field: quote the whole field and double the quote inside it ("say ""hi""")`}
	case errors.Is(pe.Err, csv.ErrQuote) && unclosed(data, pe.StartLine):
		return &Error{Line: pe.StartLine, Msg: `a quoted field that starts on this line is never closed (the file ends inside it): end it with " and write a " inside a quoted value as ""`}
	case errors.Is(pe.Err, csv.ErrQuote) && pe.StartLine != pe.Line:
		return &Error{Line: pe.StartLine, Msg: fmt.Sprintf(`a quoted field that starts on this line is not closed properly (line %d, column %d): end it with " right before the comma, and write a " inside it as ""`, pe.Line, pe.Column)}
	case errors.Is(pe.Err, csv.ErrQuote):
		return &Error{Line: pe.Line, Col: pe.Column, Msg: `extraneous or missing " in a quoted field: end the field with " right before the comma, and write a " inside it as ""`}
	}
	return &Error{Line: pe.Line, Col: pe.Column, Msg: pe.Err.Error()}
}

// unclosed reports an odd number of quotes from line to the end of data.
func unclosed(data []byte, line int) bool {
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return false
		}
		data = data[i+1:]
	}
	return bytes.Count(data, []byte{'"'})%2 == 1
}

// Header returns the column names of a seed file's first line, or nil when
// it has none or cannot be read (Parse says why).
func Header(data []byte) []string {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	h, err := r.Read()
	if err != nil {
		return nil
	}
	return h
}

// checkEncoding refuses what some engine would refuse only at load time,
// half-way through a build: bytes that are not UTF-8, and NUL bytes (which
// PostgreSQL text cannot hold).
func checkEncoding(data []byte) *Error {
	at := bytes.IndexByte(data, 0)
	msg := "a NUL byte: no engine stores it in text portably; remove it"
	if !utf8.Valid(data) {
		bad := 0
		for bad < len(data) {
			r, size := utf8.DecodeRune(data[bad:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			bad += size
		}
		if at < 0 || bad < at {
			at, msg = bad, "the file is not UTF-8 here: save it as UTF-8"
		}
	}
	if at < 0 {
		return nil
	}
	line := bytes.Count(data[:at], []byte("\n")) + 1
	col := at - bytes.LastIndexByte(data[:at], '\n')
	return &Error{Line: line, Col: col, Msg: msg}
}

// checkLineEnds refuses a carriage return that ends a line without a line
// feed (classic Mac line endings) outside quotes: the CSV reader splits
// lines at \n only, so the whole file read as one header and the seed
// loaded no rows without a word.
func checkLineEnds(data []byte) *Error {
	quoted := false
	line := 1
	for i, c := range data {
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\n':
			line++
		case c == '\r' && !quoted && (i+1 == len(data) || data[i+1] != '\n'):
			col := i - bytes.LastIndexByte(data[:i], '\n')
			return &Error{Line: line, Col: col, Msg: "a line ends with a carriage return alone (old Mac line endings): save the file with \\n or \\r\\n line endings"}
		}
	}
	return nil
}
