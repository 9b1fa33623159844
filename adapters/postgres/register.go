package postgres

import (
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemc/idemc/adapters"
)

func init() {
	adapters.RegisterClient("postgres", adapters.Client{Open: Open, Secrets: secrets, Where: where})
}

// secrets is the DSN's password as pgx reads it (URL, key=value, or
// PGPASSWORD), or the whole DSN when pgx cannot read it.
func secrets(settings map[string]string) []string {
	dsn := settings["dsn"]
	if dsn == "" {
		return nil
	}
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return []string{dsn}
	}
	var out []string
	if cfg.Password != "" {
		out = append(out, cfg.Password)
	}
	// An unescaped '@' in a URL password makes pgx read the rest of the
	// password as the host, which connection errors then quote: the text
	// after the user's ':' up to the DSN's last '@' is secret too.
	if i := strings.Index(dsn, "://"); i >= 0 {
		if at := strings.LastIndexByte(dsn, '@'); at > i {
			if _, pw, ok := strings.Cut(dsn[i+3:at], ":"); ok && pw != cfg.Password {
				out = append(out, pw)
			}
		}
	}
	return out
}

// where is the DSN's host and port as pgx reads them.
func where(settings map[string]string) string {
	cfg, err := pgconn.ParseConfig(settings["dsn"])
	if err != nil || settings["dsn"] == "" {
		return ""
	}
	host := cfg.Host
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:] // the rest of a password with an unescaped '@'
	}
	return net.JoinHostPort(host, strconv.Itoa(int(cfg.Port)))
}

var _ adapters.RunLocks = (*Engine)(nil)
