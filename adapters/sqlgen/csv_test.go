package sqlgen

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadCSVKinds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	data := "i,f,b,d,ts,s,empty,mixed\n1,1.5,true,2026-07-01,2026-07-01 10:00:00,x,,1\n-2,2,false,2026-07-02,2026-07-02T11:00:00,y,,a\n,,,,,,,\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := ReadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{KindBigInt, KindDouble, KindBoolean, KindDate, KindTimestamp, KindText, KindText, KindText}
	for i, c := range f.Columns {
		if c.Kind != want[i] {
			t.Errorf("column %s: kind %s, want %s", c.Name, c.Kind, want[i])
		}
	}
	if len(f.Rows) != 3 {
		t.Errorf("rows = %d, want 3", len(f.Rows))
	}
}
