package spark

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sparktypes "github.com/apache/spark-connect-go/spark/sql/types"
)

// TestValueText: what a query's Arrow values read as. Dates, timestamps
// and decimals came back as their raw counts (a DATE 2026-07-01 read as
// 20635, found by the conformance suite's sound_state scenario on live
// Spark).
func TestValueText(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		typ  sparktypes.DataType
		want string
	}{
		{"date", arrow.Date32(20635), sparktypes.DateType{}, "2026-07-01 00:00:00"},
		{"date before 1970", arrow.Date32(-1), sparktypes.DateType{}, "1969-12-31 00:00:00"},
		{"date64", arrow.Date64(1782864000000), sparktypes.DateType{}, "2026-07-01 00:00:00"},
		{"timestamp", arrow.Timestamp(1782909045123456), sparktypes.TimestampType{}, "2026-07-01 12:30:45.123456"},
		{"decimal", decimal128.FromI64(-12345), sparktypes.DecimalType{Precision: 10, Scale: 2}, "-123.45"},
		{"decimal scale 0", decimal128.FromI64(7), sparktypes.DecimalType{Precision: 10, Scale: 0}, "7"},
		{"long", int64(3), sparktypes.LongType{}, "3"},
		{"string", "x", sparktypes.StringType{}, "x"},
		{"null", nil, sparktypes.DateType{}, "NULL"},
	} {
		if got := valueText(goValue(tc.v, tc.typ)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMetricRows: the rows a statement wrote, from the metrics row Delta
// returns (as the live server answered for each kind).
func TestMetricRows(t *testing.T) {
	merge := []string{"num_affected_rows", "num_updated_rows", "num_deleted_rows", "num_inserted_rows"}
	for _, tc := range []struct {
		name   string
		names  []string
		values []any
		want   int64
	}{
		{"claim MERGE that inserted", merge, []any{int64(1), int64(0), int64(0), int64(1)}, 1},
		{"claim MERGE that found a holder", merge, []any{int64(0), int64(0), int64(0), int64(0)}, 0},
		{"delete-insert MERGE: deleted rows are not written", merge, []any{int64(7), int64(0), int64(3), int64(4)}, 4},
		{"upsert MERGE", merge, []any{int64(5), int64(2), int64(0), int64(3)}, 5},
		{"DELETE", []string{"num_affected_rows"}, []any{int64(2)}, 2},
		{"no metrics", nil, nil, -1},
		{"not a number", []string{"num_affected_rows"}, []any{"2"}, -1},
	} {
		if got := metricRows(tc.names, tc.values); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
