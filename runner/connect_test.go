package runner

import (
	"strings"
	"testing"
)

func TestDSNPassword(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://u:pw@h:5432/db", "pw"},
		{"postgres://u:S3cr@tPart2@h:5432/db?x=1", "S3cr@tPart2"},
		{"postgres://u@h/db", ""},
		{"postgres://u@h/db?sslmode=disable&password=S3cr&tPart2", "S3cr&tPart2"},
		{"host=h user=u password=S3cr tPart2 dbname=d", "S3cr tPart2"},
		{"host=h password='a b''c' dbname=d", "a b''c"},
		{"root:pw@tcp(127.0.0.1:3306)/test", "pw"},
		{"root:p@w@tcp(127.0.0.1:3306)/test", "p@w"},
		{"root@tcp(127.0.0.1:3306)/test", ""},
		{"", ""},
	} {
		if got := dsnPassword(tc.dsn); got != tc.want {
			t.Errorf("dsnPassword(%q) = %q, want %q", tc.dsn, got, tc.want)
		}
	}
}

func TestRedactFragments(t *testing.T) {
	settings := map[string]string{"dsn": "postgres://u:S3cr@tPart2xyz@h:5432/db", "password": "hunter22"}
	msg := redact("lookup tPart2xyz@h: no such host; auth hunter22 failed for S3cr", settings)
	for _, leak := range []string{"tPart2xyz", "hunter22", "S3cr"} {
		if strings.Contains(msg, leak) {
			t.Errorf("%q leaks in %q", leak, msg)
		}
	}
}
