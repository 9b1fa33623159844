package dialect

import (
	"strings"

	"github.com/idemc/idemc/adapters/seed"
)

// Delta refuses a column name with one of ` ,;{}()\n\t=` in a table without
// column mapping (DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES): Parquet's
// physical names cannot hold them. Column mapping (mode name) stores the
// data under generated physical names, so any name works; it needs reader
// version 2 and writer version 5, which older readers cannot read.
const mappingProps = "TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5')"

// deltaRejected are the characters Delta refuses in a column name without
// column mapping.
const deltaRejected = " ,;{}()\n\t="

// NeedsMapping reports whether a Delta table with these columns needs
// column mapping: a name has a character Delta refuses without it, or the
// names are unknown (nil: the model's SELECT was not analysed and the
// runner did not describe the batch), where only mapping is sure to work.
func NeedsMapping(cols []string) bool {
	if cols == nil {
		return true
	}
	for _, c := range cols {
		if strings.ContainsAny(c, deltaRejected) {
			return true
		}
	}
	return false
}

// tableProps is what follows USING DELTA in a CREATE [OR REPLACE] TABLE of
// these columns: the column mapping properties when they need them, else
// nothing. Every CREATE states them again: CREATE OR REPLACE TABLE does not
// keep the replaced table's mapping mode.
func tableProps(cols []string) string {
	if NeedsMapping(cols) {
		return " " + mappingProps
	}
	return ""
}

// seedColumns are a seed's column names (never nil: a seed's are known).
func seedColumns(t *seed.Table) []string {
	out := make([]string, 0, len(t.Columns))
	for _, c := range t.Columns {
		out = append(out, c.Name)
	}
	return out
}
