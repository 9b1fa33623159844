package openlineage

import "testing"

func TestParentFromEnv(t *testing.T) {
	for _, tt := range []struct {
		in            string
		ns, name, run string
	}{
		{"airflow/dag.task/0191f3c5-7b7e-7c1c-9d6e-1f2a3b4c5d6e", "airflow", "dag.task", "0191f3c5-7b7e-7c1c-9d6e-1f2a3b4c5d6e"},
		{"ns/a/b/0191f3c5-7b7e-7c1c-9d6e-1f2a3b4c5d6e", "ns", "a/b", "0191f3c5-7b7e-7c1c-9d6e-1f2a3b4c5d6e"},
		{"ns/job/not-a-uuid", "", "", ""},
		{"", "", "", ""},
	} {
		p := parentFromEnv(tt.in)
		if tt.run == "" {
			if p != nil {
				t.Errorf("%q: parent %+v, want none", tt.in, p)
			}
			continue
		}
		if p == nil || p.namespace != tt.ns || p.name != tt.name || p.runID != tt.run {
			t.Errorf("%q: parent %+v", tt.in, p)
		}
	}
}

func TestRunIDDeterministic(t *testing.T) {
	a, b := RunID("r1", "m/2026-07-01"), RunID("r1", "m/2026-07-01")
	if a != b || a == RunID("r2", "m/2026-07-01") || a == RunID("r1", "m/2026-07-02") {
		t.Fatalf("run ids: %s %s", a, b)
	}
}
