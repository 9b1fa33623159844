package runner

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
)

// TestRedactFragments: a target's secrets — its password setting and what
// the engine's client finds secret (here a DSN password) — are hidden from
// a message with their fragments, which drivers quote after cutting a
// malformed DSN at '@' or ':'.
func TestRedactFragments(t *testing.T) {
	settings := map[string]string{"dsn": "postgres://u:S3cr@tPart2xyz@h:5432/db", "password": "hunter22"}
	ad := &adapters.Adapter{Client: adapters.Client{Secrets: func(map[string]string) []string { return []string{"S3cr@tPart2xyz"} }}}
	msg := redact("lookup tPart2xyz@h: no such host; auth hunter22 failed for S3cr", settings, ad)
	for _, leak := range []string{"tPart2xyz", "hunter22", "S3cr"} {
		if strings.Contains(msg, leak) {
			t.Errorf("%q leaks in %q", leak, msg)
		}
	}
	if !strings.Contains(msg, "no such host") {
		t.Errorf("the message lost its words: %q", msg)
	}
}
