package spark

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	sparktypes "github.com/apache/spark-connect-go/spark/sql/types"
)

// goValue turns a value of Spark Connect's Arrow rows into what a
// database/sql driver gives for the column: a DATE or TIMESTAMP a
// time.Time (Arrow's are day and microsecond counts, which printed as
// numbers: a date read back by the state or a check was "20635"), a
// DECIMAL its text at the column's scale (Arrow's is the unscaled
// integer). Spark sends timestamps in microseconds, TIMESTAMP in UTC (the
// session time zone idemc pins) and TIMESTAMP_NTZ as wall time.
func goValue(v any, t sparktypes.DataType) any {
	switch x := v.(type) {
	case arrow.Date32:
		return time.Unix(int64(x)*86400, 0).UTC()
	case arrow.Date64:
		return time.UnixMilli(int64(x)).UTC()
	case arrow.Timestamp:
		return time.UnixMicro(int64(x)).UTC()
	case decimal128.Num:
		if d, ok := t.(sparktypes.DecimalType); ok {
			return x.ToString(d.Scale)
		}
		return x.ToString(0)
	case decimal256.Num:
		if d, ok := t.(sparktypes.DecimalType); ok {
			return x.ToString(d.Scale)
		}
		return x.ToString(0)
	}
	return v
}

// goRow converts a row's values in place (goValue), by the columns' types.
func goRow(vals []any, types []sparktypes.DataType) []any {
	for i := range vals {
		if i < len(types) {
			vals[i] = goValue(vals[i], types[i])
		}
	}
	return vals
}

// metricRows reads the rows a DML statement wrote from Delta's metrics
// row: a MERGE's inserted plus updated rows (its num_affected_rows also
// counts the rows it deleted, which a delete-insert MERGE does to every
// key it replaces), an UPDATE's or DELETE's num_affected_rows; -1 when the
// row has neither.
func metricRows(names []string, values []any) int64 {
	m := map[string]int64{}
	for i, n := range names {
		if i < len(values) {
			if v, ok := values[i].(int64); ok {
				m[n] = v
			}
		}
	}
	ins, okI := m["num_inserted_rows"]
	upd, okU := m["num_updated_rows"]
	if okI && okU {
		return ins + upd
	}
	if n, ok := m["num_affected_rows"]; ok {
		return n
	}
	return -1
}
