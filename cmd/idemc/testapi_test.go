package main

import (
	"encoding/json"
	"os"
	"strconv"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/idemc/idemc/internal/httpsource/testapi"
)

// scriptAPIs are the test APIs of the running scripts, by script.
var scriptAPIs sync.Map // *testscript.TestScript → *testapi.API

// testAPI drives a local test API (internal/httpsource/testapi) from a
// script:
//
//	testapi start N SIZE          serve N records, SIZE a page; exports TESTAPI (its URL)
//	testapi stats FILE            write the requests served so far as JSON, then reset nothing
//	testapi change ID             change record ID (its amount and updated_at)
//	testapi add ID FIELD          add record ID with a new field FIELD
//	testapi token T               require Authorization: Bearer T
//	testapi fail STATUS N PAGE RA answer STATUS to the next N requests of PAGE (0: any), Retry-After RA ("-": none)
func testAPI(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: testapi start N SIZE | stats FILE | change ID | fail STATUS N PAGE RA")
	}
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			ts.Fatalf("testapi: %q is not a number", s)
		}
		return n
	}
	if args[0] == "start" && len(args) == 3 {
		api := testapi.New(num(args[1]), num(args[2]))
		url, stop := api.Start()
		ts.Defer(stop)
		scriptAPIs.Store(ts, api)
		ts.Defer(func() { scriptAPIs.Delete(ts) })
		ts.Setenv("TESTAPI", url)
		return
	}
	v, ok := scriptAPIs.Load(ts)
	if !ok {
		ts.Fatalf("testapi: run testapi start first")
	}
	api := v.(*testapi.API)
	switch {
	case args[0] == "stats" && len(args) == 2:
		b, err := json.Marshal(api.Stats())
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), append(b, '\n'), 0o644))
	case args[0] == "add" && len(args) == 3:
		// A record with a field the others lack: the API changed shape.
		api.Add(map[string]any{"id": num(args[1]), "name": "new", "amount": 1.5, "status": "new",
			"updated_at": testapi.Epoch.Add(48 * 3600 * 1e9).Format("2006-01-02T15:04:05Z"), args[2]: "X1"})
	case args[0] == "token" && len(args) == 2:
		api.SetToken(args[1])
	case args[0] == "change" && len(args) == 2:
		api.Change(num(args[1]), testapi.Epoch.Add(24*3600*1e9))
	case args[0] == "fail" && len(args) == 5:
		ra := args[4]
		if ra == "-" {
			ra = ""
		}
		api.Fail(num(args[1]), num(args[2]), num(args[3]), ra)
	default:
		ts.Fatalf("usage: testapi start N SIZE | stats FILE | change ID | fail STATUS N PAGE RA")
	}
}
