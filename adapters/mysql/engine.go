package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/mysql/dialect"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

func init() {
	adapters.RegisterClient("mysql", adapters.Client{Open: Open, Secrets: secrets, Where: where})
}

// Engine is a MySQL or MariaDB server.
type Engine struct {
	db *sql.DB
	d  dialect.Dialect
}

// Open connects with settings["dsn"] in go-sql-driver form
// (user:password@tcp(host:3306)/db). parseTime is turned on so dates scan
// as dates. settings["password"], when set, is the password, so that the
// DSN need not hold it.
func Open(ctx context.Context, settings map[string]string) (adapters.Engine, error) {
	dsn := settings["dsn"]
	if dsn == "" {
		return nil, errors.New("mysql: the target needs dsn = \"user@tcp(host:3306)/db\"")
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysql: dsn: %w", err)
	}
	if pw := settings["password"]; pw != "" {
		cfg.Passwd = pw
	}
	cfg.ParseTime = true
	// An UPDATE reports the rows it matched, not only those it changed, so a
	// merge's row count is the batch's.
	cfg.ClientFoundRows = true
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	// Standard string literals and a known time zone.
	cfg.Params["time_zone"] = "'+00:00'"
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	if err := sqlgen.Ping(ctx, "mysql", db); err != nil {
		return nil, err
	}
	return &Engine{db: db, d: dialect.NewDialect()}, nil
}

// Session pins one connection (GET_LOCK and temporary tables live on it).
func (e *Engine) Session(ctx context.Context) (adapters.Session, error) {
	c, err := sqlgen.Pin(ctx, "mysql", e.db)
	if err != nil {
		return nil, err
	}
	return &sqlgen.Session{Conn: c, Gen: e.d.Gen, LockTaken: lockTaken}, nil
}

// LoadSeed runs the dialect's seed load (built aside, swapped in with
// RENAME TABLE) under the destination's lock, as a model unit takes it:
// two runners loading one seed would otherwise drop and rename each
// other's r__idemc_new (errors 1146, 1050).
func (e *Engine) LoadSeed(ctx context.Context, r plan.Relation, t *seed.Table) (int64, error) {
	c, err := e.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	release, err := e.lockTable(ctx, c, r)
	if err != nil {
		return 0, err
	}
	defer release()
	err = e.d.SeedLoad(r, t).Run(func(q string, args ...any) error {
		_, err := c.ExecContext(ctx, q, args...)
		return err
	})
	if err != nil {
		return 0, err
	}
	return int64(len(t.Rows)), nil
}

// lockTable takes the table's GET_LOCK on c (the name a unit writing r
// takes) and returns its release. NULL (an error) is not a lock.
func (e *Engine) lockTable(ctx context.Context, c *sql.Conn, r plan.Relation) (func(), error) {
	name := e.d.LockName(&plan.Write{Target: r})
	var got sql.NullInt64
	if err := c.QueryRowContext(ctx, "SELECT GET_LOCK(?, 600)", name).Scan(&got); err != nil {
		return nil, fmt.Errorf("mysql: taking the lock %s: %w", name, err)
	}
	if !got.Valid {
		return nil, fmt.Errorf("mysql: the lock %s was not taken (GET_LOCK returned NULL): nothing was loaded; run again", name)
	}
	if got.Int64 != 1 {
		return nil, fmt.Errorf("mysql: timed out waiting for the lock %s: the seed is %w", name, adapters.ErrLocked)
	}
	return func() { _, _ = c.ExecContext(context.WithoutCancel(ctx), "SELECT RELEASE_LOCK(?)", name) }, nil
}

// HoldRun takes GET_LOCK('idemc-run:<id>') on a dedicated connection.
func (e *Engine) HoldRun(ctx context.Context, runID string) (func(), error) {
	c, err := e.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var got sql.NullInt64
	if err := c.QueryRowContext(ctx, "SELECT GET_LOCK(?, 10)", runLock(runID)).Scan(&got); err != nil || got.Int64 != 1 {
		c.Close()
		if err == nil {
			err = fmt.Errorf("mysql: could not take the run lock %s", runLock(runID))
		}
		return nil, err
	}
	return func() {
		_, _ = c.ExecContext(context.Background(), "SELECT RELEASE_LOCK(?)", runLock(runID))
		c.Close()
	}, nil
}

// RunAlive reports whether another session holds the run's lock.
func (e *Engine) RunAlive(ctx context.Context, runID string) (bool, error) {
	var free sql.NullInt64
	if err := e.db.QueryRowContext(ctx, "SELECT IS_FREE_LOCK(?)", runLock(runID)).Scan(&free); err != nil {
		return false, err
	}
	return free.Int64 != 1, nil
}

// runLock names a run's lock within GET_LOCK's 64 characters.
func runLock(runID string) string { return "idemc-run:" + runID }

// Close closes the pool.
func (e *Engine) Close() error { return e.db.Close() }

var _ adapters.RunLocks = (*Engine)(nil)

// LostDDLRace reports error 1050 (table already exists): CREATE TABLE IF
// NOT EXISTS of a table another session creates at the same moment. Run
// again, it finds the table.
func (e *Engine) LostDDLRace(err error) bool {
	var me *gomysql.MySQLError
	return errors.As(err, &me) && me.Number == 1050
}

var _ adapters.DDLRacer = (*Engine)(nil)

// Retryable reports InnoDB deadlocks and lock wait timeouts: the
// transaction was rolled back and can run again.
func (e *Engine) Retryable(err error) bool {
	var me *gomysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

// secrets is the DSN's password as the MySQL driver reads it, or the whole
// DSN when the driver cannot read it.
func secrets(settings map[string]string) []string {
	dsn := settings["dsn"]
	if dsn == "" {
		return nil
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return []string{dsn}
	}
	if cfg.Passwd == "" {
		return nil
	}
	return []string{cfg.Passwd}
}

// where is the DSN's address as the MySQL driver reads it.
func where(settings map[string]string) string {
	cfg, err := gomysql.ParseDSN(settings["dsn"])
	if err != nil || settings["dsn"] == "" {
		return ""
	}
	return cfg.Addr
}

// lockTaken reads GET_LOCK's answer: 1 is the lock, 0 a wait that timed
// out, NULL an error in which it was not taken (a killed wait, no memory).
// Only 1 lets the unit write.
func lockTaken(s *plan.Step, rows [][]string) error {
	v := "no row"
	if len(rows) > 0 && len(rows[0]) > 0 {
		v = rows[0][0]
	}
	what := "the lock"
	if s.Lock != nil && s.Lock.Key != "" {
		what = "the lock of " + s.Lock.Key
	}
	switch v {
	case "1":
		return nil
	case "0":
		wait := ""
		if s.Lock != nil && s.Lock.Timeout > 0 {
			wait = " after " + s.Lock.Timeout.String()
		}
		return fmt.Errorf("mysql: the wait for %s timed out%s: %w", what, wait, adapters.ErrLocked)
	}
	return fmt.Errorf("mysql: GET_LOCK answered %s, so %s was not taken: %w", v, what, adapters.ErrLocked)
}
