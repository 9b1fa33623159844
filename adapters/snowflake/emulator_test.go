package snowflake

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	sf "github.com/snowflakedb/gosnowflake"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/conformance"
	"github.com/idemc/idemc/adapters/snowflake/dialect"
	"github.com/idemc/idemc/adapters/sqlgen"
)

func TestMain(m *testing.M) {
	adapters.Register(&adapters.Adapter{Name: emulatorEngine, Dialect: dialect.NewDialect(), Capabilities: dialect.Capabilities,
		Settings: []string{"account", "user", "password", "database", "host", "port", "protocol"}})
	adapters.RegisterClient(emulatorEngine, adapters.Client{Open: openEmulator})
	conformance.MaybeChild()
	os.Exit(m.Run())
}

// emulatorEnv names the gosnowflake DSN of a local Snowflake emulator
// (fakesnow's server mode, started by scripts/services.sh fakesnow).
const emulatorEnv = "IDEMC_SNOWFLAKE_EMULATOR_DSN"

// emulatorEngine is Snowflake's dialect and engine over a connection that
// bridges the emulator's gaps (emulatorSQL), registered by this test only.
const emulatorEngine = "snowflake_emulator"

// emulator returns the target settings for the emulator named by
// IDEMC_SNOWFLAKE_EMULATOR_DSN, after creating its database; it skips the
// test when the variable is unset or the emulator does not answer.
func emulator(t *testing.T) map[string]string {
	t.Helper()
	// CI (.ci/run) starts the emulator and requires it.
	skip := t.Skipf
	if os.Getenv("IDEMC_REQUIRE_LIVE") == "1" {
		skip = t.Fatalf
	}
	dsn := os.Getenv(emulatorEnv)
	if dsn == "" {
		skip("%s is unset: start the emulator with `eval \"$(scripts/services.sh fakesnow)\"`", emulatorEnv)
	}
	cfg, err := sf.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("%s is not a gosnowflake DSN: %v", emulatorEnv, err)
	}
	s := map[string]string{"account": cfg.Account, "user": cfg.User, "password": cfg.Password,
		"database": cfg.Database, "host": cfg.Host, "port": strconv.Itoa(cfg.Port), "protocol": cfg.Protocol}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := openEmulator(ctx, s)
	if err != nil {
		skip("the Snowflake emulator at %s:%d does not answer: %v", cfg.Host, cfg.Port, err)
	}
	defer e.Close()
	if _, err := e.(*Engine).db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+dialect.NewDialect().Quote(cfg.Database)); err != nil {
		t.Fatalf("creating the emulator's database: %v", err)
	}
	return s
}

// openEmulator is Open over a connection that rewrites what the emulator
// does not take (emulatorSQL); every other statement is sent as idemc
// wrote it, through the real gosnowflake client.
func openEmulator(ctx context.Context, settings map[string]string) (adapters.Engine, error) {
	cfg, err := Config(settings)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(emuConnector{sf.NewConnector(sf.SnowflakeDriver{}, *cfg)})
	if err := sqlgen.Ping(ctx, "snowflake", db); err != nil {
		return nil, err
	}
	return &Engine{db: db, d: dialect.NewDialect()}, nil
}

var (
	queryTag  = regexp.MustCompile(`(?s)^ALTER SESSION (SET QUERY_TAG = .*|UNSET QUERY_TAG)$`)
	swapWith  = regexp.MustCompile(`^ALTER TABLE ("(?:[^"]|"")*")\.("(?:[^"]|"")*") SWAP WITH ("(?:[^"]|"")*"\.(?:"(?:[^"]|"")*"))$`)
	tempTable = regexp.MustCompile(`^CREATE OR REPLACE TEMPORARY TABLE `)
)

// emulatorSQL is what the emulator (fakesnow 0.12) is sent for q: it
// answers "not implemented" to ALTER SESSION SET/UNSET QUERY_TAG (a tag on
// the query history: nothing to emulate, sent as a no-op), has no ALTER
// TABLE … SWAP WITH (three renames, not atomic: no test kills a seed
// load), and refuses a TEMPORARY table qualified by a schema (DuckDB keeps
// them in its temp catalog: a plain table, dropped by the recipe).
func emulatorSQL(q string) []string {
	switch {
	case queryTag.MatchString(q):
		return []string{"SELECT 1"}
	case swapWith.MatchString(q):
		m := swapWith.FindStringSubmatch(q)
		a, tmp := m[1]+"."+m[2], m[3][:len(m[3])-1]+`_SWAP"` // one per aside: loads run at once
		return []string{"ALTER TABLE " + a + " RENAME TO " + tmp, "ALTER TABLE " + m[3] + " RENAME TO " + a, "ALTER TABLE " + tmp + " RENAME TO " + m[3]}
	case tempTable.MatchString(q):
		return []string{tempTable.ReplaceAllString(q, "CREATE OR REPLACE TABLE ")}
	}
	return []string{q}
}

type emuConnector struct{ driver.Connector }

func (c emuConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &emuConn{cn}, nil
}

// emuConn is a gosnowflake connection that sends emulatorSQL's statements.
type emuConn struct{ driver.Conn }

func (c *emuConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	var res driver.Result
	for _, s := range emulatorSQL(q) {
		r, err := c.Conn.(driver.ExecerContext).ExecContext(ctx, s, args)
		if err != nil {
			return nil, err
		}
		res = r
	}
	return res, nil
}

func (c *emuConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	stmts := emulatorSQL(q)
	for _, s := range stmts[:len(stmts)-1] {
		if _, err := c.Conn.(driver.ExecerContext).ExecContext(ctx, s, args); err != nil {
			return nil, err
		}
	}
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, stmts[len(stmts)-1], args)
}

func (c *emuConn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, o)
}

func (c *emuConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c *emuConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}

// emulatorSkips are the scenarios the emulator cannot run, and why
// (fakesnow 0.12.1 over DuckDB 1.x; docs/engines.md lists them too).
var emulatorSkips = func() map[string]string {
	merge := "fakesnow cannot run MERGE inside BEGIN … COMMIT: it writes its own catalog database (_fs_global) in the " +
		"transaction that wrote the warehouse's, which DuckDB refuses (\"a single transaction can only write to a single attached database\"); " +
		"it answers HTTP 500 and gosnowflake retries for a minute"
	caseSensitive := "the scenario reads information_schema with the schema name in lower case and expects lower-case column names in " +
		"messages; Snowflake stores unquoted names in upper case (a real account answers the same)"
	return map[string]string{
		"rerun_same_state": merge, "merge_null_keys": merge, "duplicate_batch_keys": merge, "merge_exclude_columns": merge,
		"watermark_reread": merge, "special_column_names": merge, "up_to_date_no_writes": merge, "materialization_change": merge,
		"on_schema_change/type_full_refresh": merge, "row_lineage/merge": merge,
		"on_schema_change/columns": caseSensitive, "on_schema_change/type_fail_and_append": caseSensitive,
		"on_schema_change/type_sync_all_columns": caseSensitive,
		"default_schema":                         "the emulator's session has no current schema when the target names none (Snowflake's is the user's default namespace)",
		"sound_state":                            "a view over a rebuilt table is rebuilt too on the emulator (not diagnosed)",
	}
}()

// TestEmulatorConformance runs the shared suite on the emulator, but for
// emulatorSkips.
func TestEmulatorConformance(t *testing.T) {
	s := emulator(t)
	conformance.Run(t, conformance.Target{Engine: emulatorEngine, Concurrent: true, Skip: emulatorSkips,
		Settings: func(string) map[string]string { return s }})
}

// TestEmulatorDriftMedian runs the drift rule's median query (median())
// on the emulator.
func TestEmulatorDriftMedian(t *testing.T) {
	s := emulator(t)
	conformance.DriftMedian(t, conformance.Target{Engine: emulatorEngine, Settings: func(string) map[string]string { return s }})
}
