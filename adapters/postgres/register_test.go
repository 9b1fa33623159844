package postgres

import (
	"slices"
	"testing"
)

// TestSecretsAndWhere: the password and the host of every DSN form pgx
// reads, found by pgx's own parser (the runner hides the one and prints
// the other).
func TestSecretsAndWhere(t *testing.T) {
	for _, tc := range []struct{ dsn, secret, where string }{
		{"postgres://u:pw@h:5432/db", "pw", "h:5432"},
		{"postgres://u:S3cr@tPart2@h:5433/db?x=1", "S3cr@tPart2", "h:5433"},
		{"postgres://u@h/db", "", "h:5432"},
		{"postgres://u@h/db?sslmode=disable&password=S3cr%26tPart2", "S3cr&tPart2", "h:5432"},
		{"host=h user=u password=S3crtPart2 dbname=d", "S3crtPart2", "h:5432"},
		{"host=h port=5434 password='a b\\'c' dbname=d", "a b'c", "h:5434"},
		{"postgres://u:pw@[::1]:5432/db", "pw", "[::1]:5432"},
		{"postgresql://ann:@localhost/shop", "", "localhost:5432"},
	} {
		got := secrets(map[string]string{"dsn": tc.dsn})
		if tc.secret == "" && len(got) != 0 || tc.secret != "" && !slices.Contains(got, tc.secret) {
			t.Errorf("secrets(%q) = %q, want %q", tc.dsn, got, tc.secret)
		}
		if w := where(map[string]string{"dsn": tc.dsn}); w != tc.where {
			t.Errorf("where(%q) = %q, want %q", tc.dsn, w, tc.where)
		}
	}
	// A DSN pgx cannot read is secret as a whole: its password cannot be told apart.
	for _, bad := range []string{"postgres://u:pw@h:notaport/db", "postgres://ann:pa%zz@db/shop", "postgres://ann:p@ss/w?rd@db:5432/shop"} {
		if got := secrets(map[string]string{"dsn": bad}); !slices.Equal(got, []string{bad}) {
			t.Errorf("secrets(%q) = %q, want the whole DSN", bad, got)
		}
	}
}

// TestPasswordSetting: a target's password setting is the password pgx
// sends, over the DSN's; without it the DSN's stands; every session is UTC.
func TestPasswordSetting(t *testing.T) {
	for _, tc := range []struct{ dsn, password, want string }{
		{"postgres://u@h/db", "s3cret", "s3cret"},
		{"postgres://u:old@h/db", "s3cret", "s3cret"},
		{"postgres://u:old@h/db", "", "old"},
		{"host=h user=u dbname=d", "s3cret", "s3cret"},
	} {
		cfg, err := connConfig(map[string]string{"dsn": tc.dsn, "password": tc.password})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Password != tc.want || cfg.RuntimeParams["timezone"] != "UTC" {
			t.Errorf("%q with password %q: pgx sends %q (timezone %q), want %q", tc.dsn, tc.password, cfg.Password, cfg.RuntimeParams["timezone"], tc.want)
		}
	}
}
