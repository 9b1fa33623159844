package snowflake

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/idemc/idemc/internal/fakelocks"
)

// fakeSnowflake answers the REST calls gosnowflake makes (login-request,
// query-request, session delete, telemetry) and records every statement with
// the session token it arrived on.
type fakeSnowflake struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	logins   []map[string]any // login-request bodies
	stmts    []stmt
	sessions int
	// answer, when set, returns the rows of a query (nil: no rows) or an
	// error message.
	answer func(sql string) (cols []string, rows [][]string, errMsg string)
	// locks is the lock table of unit claims, answered as Snowflake would.
	locks fakelocks.Table
}

type stmt struct {
	Session string
	SQL     string
	Tag     string   // QUERY_TAG in force on the session when it ran
	Binds   []string // bound values in order, as "TYPE value" (NULL: "TYPE <nil>")
}

func newFakeSnowflake(t *testing.T) *fakeSnowflake {
	f := &fakeSnowflake{t: t}
	tags := map[string]string{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := readBody(r)
		if err != nil {
			t.Errorf("fake snowflake: %v", err)
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/session/v1/login-request":
			var req map[string]any
			_ = json.Unmarshal(body, &req)
			f.mu.Lock()
			f.logins = append(f.logins, req)
			f.sessions++
			tok := fmt.Sprintf("tok-%d", f.sessions)
			f.mu.Unlock()
			writeJSON(w, map[string]any{"success": true, "data": map[string]any{
				"token": tok, "masterToken": "master-" + tok, "sessionId": f.sessions,
				"validityInSeconds": 3600, "masterValidityInSeconds": 14400,
				"parameters":  []any{},
				"sessionInfo": map[string]any{"databaseName": "DEMO", "schemaName": "ANALYTICS", "warehouseName": "WH", "roleName": "R"},
			}})
		case "/queries/v1/query-request":
			var req struct {
				SQLText  string `json:"sqlText"`
				Bindings map[string]struct {
					Type  string `json:"type"`
					Value any    `json:"value"`
				} `json:"bindings"`
			}
			_ = json.Unmarshal(body, &req)
			tok := sessionToken(r.Header.Get("Authorization"))
			q := req.SQLText
			f.mu.Lock()
			switch {
			case strings.HasPrefix(q, "ALTER SESSION SET QUERY_TAG = "):
				tags[tok] = strings.TrimPrefix(q, "ALTER SESSION SET QUERY_TAG = ")
			case q == "ALTER SESSION UNSET QUERY_TAG":
				delete(tags, tok)
			}
			binds := make([]string, len(req.Bindings))
			for i := range binds {
				b := req.Bindings[strconv.Itoa(i+1)]
				binds[i] = fmt.Sprintf("%s %v", b.Type, b.Value)
			}
			f.stmts = append(f.stmts, stmt{Session: tok, SQL: q, Tag: tags[tok], Binds: binds})
			answer := f.answer
			f.mu.Unlock()
			if rows, ok := f.locks.Answer(q); ok {
				answer = func(string) ([]string, [][]string, string) { return []string{"RUN_ID"}, rows, "" }
			}
			writeJSON(w, queryResponse(q, answer))
		case "/session":
			writeJSON(w, map[string]any{"success": true})
		case "/telemetry/send":
			writeJSON(w, map[string]any{"success": true})
		default:
			writeJSON(w, map[string]any{"success": true, "data": map[string]any{}})
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func readBody(r *http.Request) ([]byte, error) {
	var rd io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, err
		}
		rd = gz
	}
	return io.ReadAll(rd)
}

func sessionToken(auth string) string {
	// Snowflake Token="tok-1"
	if i := strings.Index(auth, `Token="`); i >= 0 {
		rest := auth[i+len(`Token="`):]
		if j := strings.IndexByte(rest, '"'); j >= 0 {
			return rest[:j]
		}
	}
	return auth
}

func writeJSON(w http.ResponseWriter, v any) {
	_ = json.NewEncoder(w).Encode(v)
}

// Statement type ids as Snowflake reports them.
const (
	typeSelect = 0x1000
	typeInsert = 0x3100
	typeUpdate = 0x3200
	typeDelete = 0x3300
	typeMerge  = 0x3400
	typeDDL    = 0x6000
)

func queryResponse(q string, answer func(string) ([]string, [][]string, string)) map[string]any {
	up := strings.ToUpper(strings.TrimSpace(q))
	data := map[string]any{"queryId": "01b2-fake", "queryResultFormat": "json", "finalDatabaseName": "DEMO", "finalSchemaName": "ANALYTICS"}
	fixed := func(name string) map[string]any {
		return map[string]any{"name": name, "type": "fixed", "nullable": false, "precision": 38, "scale": 0}
	}
	switch {
	case strings.HasPrefix(up, "SELECT") || strings.HasPrefix(up, "WITH"):
		var cols []string
		var rows [][]string
		errMsg := ""
		if answer != nil {
			cols, rows, errMsg = answer(q)
		}
		if errMsg != "" {
			return map[string]any{"success": false, "code": "100183", "message": errMsg, "data": map[string]any{"queryId": "01b2-fake", "sqlState": "22000"}}
		}
		if cols == nil {
			cols = []string{"N"}
		}
		rt := make([]any, len(cols))
		for i, c := range cols {
			rt[i] = map[string]any{"name": c, "type": "text", "nullable": true, "length": 100}
			// "NAME:p:s" answers a FIXED column of precision p and scale s.
			if f := strings.Split(c, ":"); len(f) == 3 {
				p, _ := strconv.Atoi(f[1])
				sc, _ := strconv.Atoi(f[2])
				rt[i] = map[string]any{"name": f[0], "type": "fixed", "nullable": true, "precision": p, "scale": sc}
			}
		}
		rs := make([][]*string, len(rows))
		for i, row := range rows {
			rs[i] = make([]*string, len(row))
			for j := range row {
				v := row[j]
				if v != "NULL" {
					rs[i][j] = &v
				}
			}
		}
		data["statementTypeId"] = typeSelect
		data["rowtype"] = rt
		data["rowset"] = rs
		data["total"] = len(rows)
		data["returned"] = len(rows)
	case strings.HasPrefix(up, "INSERT"):
		data["statementTypeId"] = typeInsert
		data["rowtype"] = []any{fixed("number of rows inserted")}
		data["rowset"] = [][]string{{"3"}}
	case strings.HasPrefix(up, "UPDATE"):
		data["statementTypeId"] = typeUpdate
		data["rowtype"] = []any{fixed("number of rows updated"), fixed("number of multi-joined rows updated")}
		data["rowset"] = [][]string{{"1", "0"}}
	case strings.HasPrefix(up, "DELETE"):
		data["statementTypeId"] = typeDelete
		data["rowtype"] = []any{fixed("number of rows deleted")}
		data["rowset"] = [][]string{{"2"}}
	case strings.HasPrefix(up, "MERGE"):
		data["statementTypeId"] = typeMerge
		data["rowtype"] = []any{fixed("number of rows inserted"), fixed("number of rows updated")}
		data["rowset"] = [][]string{{"2", "1"}}
	default:
		data["statementTypeId"] = typeDDL
		data["rowtype"] = []any{map[string]any{"name": "status", "type": "text"}}
		data["rowset"] = [][]string{{"Statement executed successfully."}}
	}
	return map[string]any{"success": true, "data": data}
}

// settings points a target at the fake server.
func (f *fakeSnowflake) settings() map[string]string {
	u, _ := url.Parse(f.srv.URL)
	return map[string]string{
		"account": "testacct", "user": "idemc", "password": "secret", "role": "TRANSFORMER",
		"warehouse": "WH", "database": "DEMO", "schema": "analytics",
		"protocol": "http", "host": u.Hostname(), "port": u.Port(),
	}
}

func (f *fakeSnowflake) statements() []stmt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]stmt(nil), f.stmts...)
}

func (f *fakeSnowflake) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stmts = nil
}

var _ = strconv.Itoa
