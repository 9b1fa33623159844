package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/compiler/project"
)

// deliverTimeout bounds one delivery; it is well inside the lease, so a
// lease never expires while its delivery may still arrive.
const deliverTimeout = 30 * time.Second

// expand replaces ${VAR} from the environment; an unset variable is an
// error naming it (never its value).
func expand(s, what string) (string, error) {
	out, missing := project.ExpandVars(s, os.LookupEnv)
	if len(missing) > 0 {
		return "", fmt.Errorf("%s needs environment variable %s, which is not set", what, missing[0])
	}
	return out, nil
}

// deliver sends one event; nil means the endpoint took it.
func deliver(ctx context.Context, client *http.Client, n *project.Notify, id, body string, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, deliverTimeout)
	defer cancel()
	if len(n.Command) > 0 {
		return runCommand(ctx, n, id, body)
	}
	url, err := expand(n.URL, "[[notify]] "+n.Name+" url")
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return fmt.Errorf("notify %s: %v", n.Name, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "idemc-notify")
	// Idempotency-Key (IETF draft) and Standard Webhooks' webhook-id carry
	// the event id: a receiver that sees it twice (a crash between sending
	// and marking) drops the second.
	ts := strconv.FormatInt(now.Unix(), 10)
	req.Header.Set("Idempotency-Key", id)
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", ts)
	if n.Secret != "" {
		secret, err := expand(n.Secret, "[[notify]] "+n.Name+" secret")
		if err != nil {
			return err
		}
		req.Header.Set("webhook-signature", sign(secret, id, ts, body))
	}
	for k, v := range n.Headers {
		v, err := expand(v, fmt.Sprintf("[[notify]] %s header %s", n.Name, k))
		if err != nil {
			return err
		}
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %v", redactURL(url), unwrapURLError(err))
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %s %s", redactURL(url), resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// sign is the Standard Webhooks signature: v1, base64 of HMAC-SHA256 over
// "id.timestamp.body", the key being the secret after "whsec_" base64
// decoded (or the secret's bytes as written).
func sign(secret, id, ts, body string) string {
	key := []byte(secret)
	if s, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			key = b
		}
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + body))
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// runCommand runs a command side effect: {{ model }}, {{ partition }},
// {{ event }}, {{ run_id }} and {{ event_id }} in its arguments are the
// event's; the payload is in IDEMC_EVENT and on stdin. Exit 0 delivers.
func runCommand(ctx context.Context, n *project.Notify, id, body string) error {
	var p payload
	_ = json.Unmarshal([]byte(body), &p)
	repl := strings.NewReplacer("{{ model }}", p.Model, "{{ partition }}", p.Partition, "{{ event }}", p.Event,
		"{{ run_id }}", p.RunID, "{{ event_id }}", id)
	args := make([]string, len(n.Command))
	for i, a := range n.Command {
		args[i] = repl.Replace(a)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "IDEMC_EVENT_ID="+id, "IDEMC_EVENT="+body)
	cmd.Stdin = strings.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tail := strings.TrimSpace(out.String())
		if len(tail) > 200 {
			tail = tail[len(tail)-200:]
		}
		return fmt.Errorf("%s: %v %s", args[0], err, tail)
	}
	return nil
}

// redactURL drops a URL's user info and query, where secrets live.
func redactURL(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if at := strings.IndexByte(u[i+3:], '@'); at >= 0 {
			if slash := strings.IndexByte(u[i+3:], '/'); slash < 0 || at < slash {
				u = u[:i+3] + u[i+3+at+1:]
			}
		}
	}
	if q := strings.IndexByte(u, '?'); q >= 0 {
		u = u[:q] + "?…"
	}
	return u
}

// unwrapURLError drops url.Error's text, which repeats the URL in full.
func unwrapURLError(err error) error {
	var ue *neturl.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
