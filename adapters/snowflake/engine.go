package snowflake

import (
	"cmp"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"database/sql"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	sf "github.com/snowflakedb/gosnowflake"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/snowflake/dialect"
	_ "github.com/idemc/idemc/adapters/snowflake/internal/nominicore" // before gosnowflake's init
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

func init() {
	adapters.RegisterClient("snowflake", adapters.Client{Open: Open,
		// Its secrets are the password, token and private_key_path settings.
		Where: func(s map[string]string) string { return cmp.Or(s["host"], s["account"]) }})
}

// Engine is a Snowflake account reached through gosnowflake.
type Engine struct {
	db *sql.DB
	d  dialect.Dialect
}

// Config turns a target's resolved settings into a gosnowflake
// configuration: account, user, role, warehouse, database, schema, and
// password or private_key_path (key-pair authentication). host, port and
// protocol are optional (private link, or a local test server).
func Config(settings map[string]string) (*sf.Config, error) {
	cfg := &sf.Config{
		Account: settings["account"], User: settings["user"], Role: settings["role"],
		Warehouse: settings["warehouse"], Database: settings["database"], Schema: strings.ToUpper(settings["schema"]),
		Host: settings["host"], Protocol: settings["protocol"],
		Application:  "idemc",
		LoginTimeout: 60 * time.Second,
		Params: map[string]*string{
			// Literals and audit times are UTC; dates print (and cast to
			// text in surrogate keys) as YYYY-MM-DD.
			"TIMEZONE":           ptr("UTC"),
			"DATE_OUTPUT_FORMAT": ptr("YYYY-MM-DD"),
			"QUERY_TAG":          ptr("idemc"),
			// Every statement outside a unit's BEGIN … COMMIT commits on
			// its own (the audit start, the DDL before BEGIN), whatever
			// the account or user default says.
			"AUTOCOMMIT": ptr("true"),
		},
	}
	if !dialect.SimpleIdent(settings["schema"]) {
		cfg.Schema = settings["schema"]
	}
	if p := settings["port"]; p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("snowflake: port %q is not a number", p)
		}
		cfg.Port = n
	}
	var missing []string
	for _, k := range []string{"account", "user"} {
		if settings[k] == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("snowflake: the target needs %s", strings.Join(missing, " and "))
	}
	switch {
	case settings["private_key_path"] != "":
		key, err := readPrivateKey(settings["private_key_path"])
		if err != nil {
			return nil, err
		}
		cfg.Authenticator = sf.AuthTypeJwt
		cfg.PrivateKey = key
	case settings["password"] != "":
		cfg.Password = settings["password"]
	default:
		return nil, errors.New("snowflake: the target needs password or private_key_path (from the environment: password = \"${SNOWFLAKE_PASSWORD}\")")
	}
	return cfg, nil
}

func ptr(s string) *string { return &s }

// readPrivateKey reads an unencrypted PKCS#8 or PKCS#1 RSA key in PEM form
// (Snowflake key-pair authentication).
func readPrivateKey(path string) (*rsa.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("snowflake: private_key_path: %w", err)
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, fmt.Errorf("snowflake: private_key_path %s holds no PEM block", path)
	}
	switch block.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("snowflake: private_key_path %s: %w", path, err)
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("snowflake: private_key_path %s is not an RSA key", path)
		}
		return rk, nil
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("snowflake: private_key_path %s: %w", path, err)
		}
		return k, nil
	case "ENCRYPTED PRIVATE KEY":
		return nil, fmt.Errorf("snowflake: private_key_path %s is encrypted; decrypt it (openssl pkcs8 -in key.p8 -out key.pem -nocrypt) and keep the file private", path)
	}
	return nil, fmt.Errorf("snowflake: private_key_path %s: unexpected PEM block %q", path, block.Type)
}

// Open connects to the target's account and logs in.
func Open(ctx context.Context, settings map[string]string) (adapters.Engine, error) {
	cfg, err := Config(settings)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(sf.NewConnector(sf.SnowflakeDriver{}, *cfg))
	if err := sqlgen.Ping(ctx, "snowflake", db); err != nil {
		return nil, err
	}
	return &Engine{db: db, d: dialect.NewDialect()}, nil
}

// Session pins one connection: one Snowflake session, so BEGIN … COMMIT,
// temporary stages and the QUERY_TAG stay together.
func (e *Engine) Session(ctx context.Context) (adapters.Session, error) {
	c, err := sqlgen.Pin(ctx, "snowflake", e.db)
	if err != nil {
		return nil, err
	}
	return session{&sqlgen.Session{Conn: c, Gen: e.d.Gen, ColumnsQuery: e.d.ColumnsQuery, ColumnType: columnType}}, nil
}

// session is sqlgen's Session whose column names, from the driver or the
// catalog, keep their stored spelling when quoted (dialect.ExactName): a
// column created quoted in lower case is not upper-cased into another.
type session struct{ *sqlgen.Session }

// Columns reports a query's columns, named exactly.
func (s session) Columns(ctx context.Context, q string) ([]plan.Column, error) {
	cols, err := s.Session.Columns(ctx, q)
	return exactNames(cols), err
}

// Relation reports a relation's columns, named exactly.
func (s session) Relation(ctx context.Context, r plan.Relation) ([]plan.Column, bool, error) {
	cols, ok, err := s.Session.Relation(ctx, r)
	return exactNames(cols), ok, err
}

func exactNames(cols []plan.Column) []plan.Column {
	for i := range cols {
		cols[i].Name = dialect.ExactName(cols[i].Name)
	}
	return cols
}

// columnType spells a result column's type as Snowflake does
// (NUMBER(p, s), not the driver's FIXED).
func columnType(t *sql.ColumnType) string {
	typ := t.DatabaseTypeName()
	if strings.EqualFold(typ, "FIXED") {
		if p, sc, ok := t.DecimalSize(); ok {
			typ = fmt.Sprintf("NUMBER(%d, %d)", p, sc)
		}
	}
	return typ
}

// LoadSeed runs the dialect's seed load: a table built aside, swapped in
// with ALTER TABLE … SWAP WITH.
func (e *Engine) LoadSeed(ctx context.Context, r plan.Relation, t *seed.Table) (int64, error) {
	c, err := e.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	// Named by the run, when ctx says it, so that a load that dies with
	// its run is dropped by the next (runner.dropStaleStages).
	tag := ""
	if run := adapters.RunOf(ctx); run != "" {
		tag = e.d.RunTag(run)
	}
	err = e.d.RunSeedLoad(r, t, tag).Run(func(q string, args ...any) error {
		_, err := c.ExecContext(ctx, q, args...)
		return err
	})
	if err != nil {
		return 0, err
	}
	return int64(len(t.Rows)), nil
}

// Retryable reports a transaction Snowflake aborted because of a deadlock or
// a lock wait timeout: it was rolled back and can run again.
func (e *Engine) Retryable(err error) bool {
	var se *sf.SnowflakeError
	if !errors.As(err, &se) {
		return false
	}
	msg := strings.ToLower(se.Message)
	return strings.Contains(msg, "deadlock") || strings.Contains(msg, "lock wait timeout") || strings.Contains(msg, "was aborted because")
}

// Close logs out and closes the pool.
func (e *Engine) Close() error { return e.db.Close() }
