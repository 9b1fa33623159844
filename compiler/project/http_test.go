package project

import (
	"testing"
	"time"

	"github.com/idemc/idemc/adapters/seed"
)

func TestHTTPSource(t *testing.T) {
	p, err := Load(writeProject(t, map[string]string{"project.toml": baseToml + `[http.orders_api]
url = "http://127.0.0.1:8089/v1/orders"
records = "data"
primary_key = ["id"]
schema = "raw"
next = "cursor:meta.next:cursor"
since = { param = "updated_since", column = "updated_at", lag = "15m", overlap = "1h" }
headers = { Authorization = "Bearer ${SHOP_TOKEN}" }
column_types = { amount = "double" }
max_pages = 50
`}))
	if err != nil {
		t.Fatal(err)
	}
	s := p.HTTPSourceNamed("orders_api")
	if s == nil || s.URL != "http://127.0.0.1:8089/v1/orders" || s.Records != "data" || s.Schema != "raw" || s.MaxPages != 50 || s.Line != 7 {
		t.Fatalf("source %+v", s)
	}
	if s.Next != (Paging{Style: "cursor", Path: "meta.next", Param: "cursor"}) {
		t.Errorf("next %+v", s.Next)
	}
	if *s.Since != (Since{Param: "updated_since", Column: "updated_at", Lag: 15 * time.Minute, Overlap: time.Hour}) {
		t.Errorf("since %+v", s.Since)
	}
	// ${VAR} stays unexpanded until the fetch: the plan holds no secret.
	if s.Headers["Authorization"] != "Bearer ${SHOP_TOKEN}" || s.ColumnTypes["amount"] != seed.Double {
		t.Errorf("headers %v, types %v", s.Headers, s.ColumnTypes)
	}
}

func TestHTTPSourceErrors(t *testing.T) {
	h := baseToml + "[http.api]\n"
	tests := []struct{ name, toml, want string }{
		{"no primary key", h + "url = \"http://x/y\"\n", `project.toml:7: [http.api] needs primary_key = ["id"]: records are merged by it, never appended`},
		{"bad url", h + "url = \"ftp://x\"\nprimary_key = [\"id\"]\n", `project.toml:8: [http.api] needs url = "https://…" (the first page), not "ftp://x"`},
		{"bad next", h + "url = \"http://x\"\nprimary_key = [\"id\"]\nnext = \"cursor:x\"\n", `project.toml:10: [http.api] next = "cursor:x" is not a pagination: use "link"`},
		{"bad lag", h + "url = \"http://x\"\nprimary_key = [\"id\"]\nsince = { param = \"s\", column = \"c\", lag = \"soon\" }\n", `project.toml:10: [http.api] since.lag = "soon" is not a duration`},
		{"unknown key", h + "url = \"http://x\"\nprimary_key = [\"id\"]\nrecods = \"data\"\n", `project.toml:10: unknown key "http.api.recods"; did you mean "records"?`},
		{"unknown since key", h + "url = \"http://x\"\nprimary_key = [\"id\"]\n[http.api.since]\nparam = \"p\"\ncolumn = \"c\"\nlagg = \"1m\"\n", `project.toml:13: unknown key "http.api.since.lagg"; did you mean "lag"?`},
		{"bad type", h + "url = \"http://x\"\nprimary_key = [\"id\"]\ncolumn_types = { a = \"varchar\" }\n", `project.toml:10: http.api.column_types.a = "varchar" is not a column type; did you mean "text"?`},
		{"max pages", h + "url = \"http://x\"\nprimary_key = [\"id\"]\nmax_pages = 0\n", `project.toml:10: [http.api] max_pages must be at least 1, not 0`},
		{"not a table", baseToml + "[http]\napi = 1\n", `project.toml:8: http.api must be a table`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeProject(t, map[string]string{"project.toml": tt.toml}))
			checkErrors(t, err, []string{tt.want})
		})
	}
	_, err := Load(writeProject(t, map[string]string{"project.toml": h + "url = \"http://x\"\nprimary_key = [\"id\"]\n", "seeds/api.csv": "id\n1\n"}))
	checkErrors(t, err, []string{`project.toml:7: [http.api] has the name of seeds/api.csv`})
}
