package project

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// notText reports why b is not a UTF-8 text file, with the line, or ok. A
// binary file saved as .sql reached the engine: DuckDB cut the SQL at the
// first NUL byte and ran the rest, and invalid UTF-8 failed as a syntax
// error naming neither the file nor the cause.
func notText(b []byte) (line int, reason string, bad bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return 1 + bytes.Count(b[:i], []byte{'\n'}), "a NUL byte: this is a binary file, not SQL text", true
	}
	if !utf8.Valid(b) {
		i := 0
		for i < len(b) {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return 1 + bytes.Count(b[:i], []byte{'\n'}), fmt.Sprintf("byte 0x%02x is not UTF-8", b[i]), true
	}
	return 0, "", false
}
