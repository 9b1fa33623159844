package project

import (
	"reflect"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	env := map[string]string{"PG_USER": "ann", "PG_PASS": "s3cret", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name     string
		settings map[string]string
		want     map[string]string
		err      string
	}{
		{"no refs", map[string]string{"path": "target/w.duckdb"}, map[string]string{"path": "target/w.duckdb", "schema": "main"}, ""},
		{"whole value", map[string]string{"user": "${PG_USER}"}, map[string]string{"user": "ann", "schema": "main"}, ""},
		{"inside a value", map[string]string{"dsn": "postgres://${PG_USER}:${PG_PASS}@db/x"}, map[string]string{"dsn": "postgres://ann:s3cret@db/x", "schema": "main"}, ""},
		{"set but empty", map[string]string{"password": "${EMPTY}"}, map[string]string{"password": "", "schema": "main"}, ""},
		{"not a reference", map[string]string{"dsn": "$PG_USER ${ not} ${1X}"}, map[string]string{"dsn": "$PG_USER ${ not} ${1X}", "schema": "main"}, ""},
		{"unset", map[string]string{"dsn": "${IDEMC_NOT_SET}"}, nil,
			`target "pg" needs environment variable IDEMC_NOT_SET, which is not set: export IDEMC_NOT_SET=... before running (see [targets.pg] in project.toml; idemc compile needs no credentials)`},
		{"several unset, sorted once each", map[string]string{"dsn": "${B_UNSET}${A_UNSET}", "user": "${B_UNSET}", "password": "${PG_PASS}"}, nil,
			`target "pg" needs environment variables A_UNSET, B_UNSET, which are not set: export A_UNSET=...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := map[string]string{}
			for k, v := range tt.settings {
				before[k] = v
			}
			tgt := &Target{Name: "pg", Engine: "postgres", Schema: "main", Settings: tt.settings}
			got, err := tgt.Resolve(lookup)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err = %v\nwant %s", err, tt.err)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("error shows a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if !reflect.DeepEqual(tgt.Settings, before) {
				t.Errorf("Resolve changed the target's settings: %v", tgt.Settings)
			}
		})
	}
}

func TestExpandSchema(t *testing.T) {
	t.Setenv("IDEMC_TEST_SCHEMA_A", "analytics")
	t.Setenv("IDEMC_TEST_SCHEMA_EMPTY", "")
	tests := []struct{ in, want, err string }{
		{"main", "main", ""},
		{"${IDEMC_TEST_SCHEMA_A}", "analytics", ""},
		{"dev_${IDEMC_TEST_SCHEMA_A}_x", "dev_analytics_x", ""},
		{"a$b", "a$b", ""},
		{"$IDEMC_TEST_SCHEMA_A", "$IDEMC_TEST_SCHEMA_A", ""},
		{"${IDEMC_TEST_SCHEMA_UNSET}", "", "project.toml:7: [seeds] schema needs environment variable IDEMC_TEST_SCHEMA_UNSET, which is not set: export IDEMC_TEST_SCHEMA_UNSET=... or write the schema literally"},
		{"${IDEMC_TEST_SCHEMA_EMPTY}", "", "IDEMC_TEST_SCHEMA_EMPTY, which is not set"},
	}
	for _, tt := range tests {
		got, err := expandSchema(tt.in, "[seeds] schema", 7)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestThreadsFor: a target's threads wins over [run] threads, for the target
// chosen by name or as default_target; neither set gives 0 (the runner's 4).
func TestThreadsFor(t *testing.T) {
	const targets = "[targets.local]\nengine = \"duckdb\"\npath = \"w.duckdb\"\nthreads = 1\n" +
		"[targets.other]\nengine = \"duckdb\"\npath = \"o.duckdb\"\n"
	tests := []struct {
		name, toml, target string
		want               int
	}{
		{"target's own", "name = \"t\"\ndefault_target = \"local\"\n" + targets + "[run]\nthreads = 8\n", "local", 1},
		{"default target's own", "name = \"t\"\ndefault_target = \"local\"\n" + targets + "[run]\nthreads = 8\n", "", 1},
		{"run threads for a target without", "name = \"t\"\ndefault_target = \"local\"\n" + targets + "[run]\nthreads = 8\n", "other", 8},
		{"neither", "name = \"t\"\ndefault_target = \"other\"\n" + targets, "", 0},
		{"undeclared target", "name = \"t\"\ndefault_target = \"local\"\n" + targets + "[run]\nthreads = 3\n", "nosuch", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := load(t, map[string]string{"project.toml": tt.toml, "models/a.sql": "SELECT 1 AS x"})
			if got := p.ThreadsFor(tt.target); got != tt.want {
				t.Errorf("ThreadsFor(%q) = %d, want %d", tt.target, got, tt.want)
			}
		})
	}
}
