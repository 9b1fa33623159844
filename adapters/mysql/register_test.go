package mysql

import (
	"slices"
	"testing"
)

// TestSecretsAndWhere: the password and the address of a DSN as the MySQL
// driver reads it (the runner hides the one and prints the other).
func TestSecretsAndWhere(t *testing.T) {
	for _, tc := range []struct{ dsn, secret, where string }{
		{"root:pw@tcp(127.0.0.1:3306)/test", "pw", "127.0.0.1:3306"},
		{"root:p@w@tcp(127.0.0.1:3306)/test", "p@w", "127.0.0.1:3306"},
		{"root@tcp(db.example:3307)/test?parseTime=true", "", "db.example:3307"},
		{"u:s3:cr@t@tcp(h)/d", "s3:cr@t", "h:3306"},
		{"ann:s3cret@unix(/tmp/mysql.sock)/shop", "s3cret", "/tmp/mysql.sock"},
		{"ann:s3cret@/shop", "s3cret", "127.0.0.1:3306"},
	} {
		got := secrets(map[string]string{"dsn": tc.dsn})
		if tc.secret == "" && len(got) != 0 || tc.secret != "" && !slices.Contains(got, tc.secret) {
			t.Errorf("secrets(%q) = %q, want %q", tc.dsn, got, tc.secret)
		}
		if w := where(map[string]string{"dsn": tc.dsn}); w != tc.where {
			t.Errorf("where(%q) = %q, want %q", tc.dsn, w, tc.where)
		}
	}
	bad := "root:pw@tcp(127.0.0.1:3306"
	if got := secrets(map[string]string{"dsn": bad}); !slices.Equal(got, []string{bad}) {
		t.Errorf("secrets(%q) = %q, want the whole DSN", bad, got)
	}
}
