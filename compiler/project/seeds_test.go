package project

import (
	"testing"

	"github.com/idemc/idemc/adapters/seed"
)

func TestSeedColumnTypes(t *testing.T) {
	p, err := Load(writeProject(t, map[string]string{
		"project.toml":    baseToml + "[seeds]\nschema = \"raw\"\n[seeds.users]\ncolumn_types = { zip = \"text\", Amount = \"double\" }\n",
		"seeds/users.csv": "id,zip,amount\n1,01234,5\n2,,7\n",
		"seeds/plain.csv": "id,zip\n1,00123\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if p.SeedSchema != "raw" {
		t.Errorf("seed schema %q", p.SeedSchema)
	}
	users := p.Seed("users")
	if users == nil || users.Table == nil {
		t.Fatalf("users not loaded: %+v", users)
	}
	want := []seed.Column{{Name: "id", Kind: seed.BigInt}, {Name: "zip", Kind: seed.Text, Declared: true}, {Name: "amount", Kind: seed.Double, Declared: true}}
	for i, c := range users.Table.Columns {
		if c != want[i] {
			t.Errorf("column %d: %+v, want %+v", i, c, want[i])
		}
	}
	if users.Table.Rows[0][1] != "01234" || users.Table.Rows[1][1] != nil || users.Table.Rows[0][2] != 5.0 {
		t.Errorf("rows %v", users.Table.Rows)
	}
	if p.Seed("plain").ColumnTypes != nil || p.Seed("plain").Table.Columns[1].Kind != seed.Text {
		t.Errorf("plain: %+v", p.Seed("plain"))
	}
	if p.Seed("nope") != nil {
		t.Errorf("a seed that does not exist")
	}
}

func TestSeedErrors(t *testing.T) {
	seeds := baseToml + "[seeds]\nschema = \"raw\"\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"extra field", map[string]string{"project.toml": baseToml, "seeds/x.csv": "a,b,c\n1,2,3\n1,2,3,4\n"},
			[]string{"seeds/x.csv:3: 4 fields, header has 3 (quote values that contain commas)"}},
		{"every file, sorted", map[string]string{"project.toml": baseToml, "seeds/b.csv": "", "seeds/a.csv": "x,x\n"},
			[]string{`seeds/a.csv:1: column "x" appears twice in the header`, "seeds/b.csv:1: the file is empty"}},
		{"unterminated quote", map[string]string{"project.toml": baseToml, "seeds/x.csv": "a\n\"open\n"},
			[]string{"seeds/x.csv:2: a quoted field that starts on this line is never closed"}},
		{"unknown type", map[string]string{"project.toml": seeds + "[seeds.x]\ncolumn_types = { a = \"varchar\" }\n", "seeds/x.csv": "a\n1\n"},
			[]string{`project.toml:10: seeds.x.column_types.a = "varchar" is not a seed type; did you mean "text"? (one of bigint, double, boolean, date, timestamp, text, decimal(P,S))`}},
		{"misspelled type", map[string]string{"project.toml": seeds + "[seeds.x]\ncolumn_types = { a = \"bigitn\" }\n", "seeds/x.csv": "a\n1\n"},
			[]string{`project.toml:10: seeds.x.column_types.a = "bigitn" is not a seed type; did you mean "bigint"?`}},
		{"type not a string", map[string]string{"project.toml": seeds + "[seeds.x]\ncolumn_types = { a = 1 }\n", "seeds/x.csv": "a\n1\n"},
			[]string{`project.toml:10: seeds.x.column_types.a must be a quoted type name, not a whole number`}},
		{"unknown column", map[string]string{"project.toml": seeds + "[seeds.x]\ncolumn_types = { zipp = \"text\" }\n", "seeds/x.csv": "id,zip\n1,2\n"},
			[]string{`project.toml:10: seeds.x.column_types names column "zipp", which seeds/x.csv does not have; did you mean "zip"?`}},
		{"unknown column far", map[string]string{"project.toml": seeds + "[seeds.x.column_types]\nqqqqqq = \"text\"\n", "seeds/x.csv": "id,zip\n1,2\n"},
			[]string{`project.toml:10: seeds.x.column_types names column "qqqqqq", which seeds/x.csv does not have; its columns are id, zip`}},
		{"value not of its type", map[string]string{"project.toml": seeds + "[seeds.x]\ncolumn_types = { amount = \"bigint\" }\n", "seeds/x.csv": "id,amount\n1,10\n2,abc\n"},
			[]string{`seeds/x.csv:3: column amount: "abc" is not a bigint`}},
		{"unknown seed key", map[string]string{"project.toml": seeds + "[seeds.x]\ncolum_types = { a = \"text\" }\n", "seeds/x.csv": "a\n1\n"},
			[]string{`project.toml:10: unknown key "seeds.x.colum_types"; did you mean "column_types"?`}},
		{"no such seed", map[string]string{"project.toml": seeds + "[seeds.userz]\ncolumn_types = { a = \"text\" }\n", "seeds/users.csv": "a\n1\n"},
			[]string{`project.toml:9: [seeds.userz] configures a seed, but there is no seeds/userz.csv; did you mean [seeds.users]?`}},
		{"schema not a string", map[string]string{"project.toml": baseToml + "[seeds]\nschema = 1\n"},
			[]string{`project.toml:8: seeds.schema must be a quoted string`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeProject(t, tt.files))
			checkErrors(t, err, tt.want)
		})
	}
}
