package runner

import (
	"testing"

	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// TestVerifyLockID: verifies of one database and schema share a lock;
// other databases of the same server (MariaDB locks are server-wide) and
// other schemas do not.
func TestVerifyLockID(t *testing.T) {
	id := func(dsn, schema string) string {
		p := &project.Project{Targets: map[string]*project.Target{"t": {Engine: "mysql", Schema: schema, Settings: map[string]string{"dsn": dsn}}}}
		return verifyLockID(p, &plan.Plan{Target: "t"})
	}
	a := id("u:pw@tcp(h:3306)/one", "")
	if a != id("u:other@tcp(h:3306)/one", "") {
		t.Errorf("the same database gave two locks")
	}
	if a == id("u:pw@tcp(h:3306)/two", "") || a == id("u:pw@tcp(h:3306)/one", "s") {
		t.Errorf("another database or schema shares the lock %s", a)
	}
	if len("idemc-run:"+a) > 64 {
		t.Errorf("lock name %q is longer than MariaDB's 64 characters", a)
	}
}
