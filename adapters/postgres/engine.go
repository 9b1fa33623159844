// Package postgres is the PostgreSQL engine (pgx v5); its SQL is the pure
// package dialect.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/postgres/dialect"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// Engine is a PostgreSQL database reached through pgx (database/sql for
// statements, the native connection for COPY).
type Engine struct {
	db *sql.DB
	d  dialect.Dialect
}

// Open connects with settings["dsn"] (a libpq URL or key=value string);
// settings["password"], when set, is the password, so that the DSN need not
// hold it.
func Open(ctx context.Context, settings map[string]string) (adapters.Engine, error) {
	cfg, err := connConfig(settings)
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDB(*cfg)
	if err := sqlgen.Ping(ctx, "postgres", db); err != nil {
		return nil, err
	}
	return &Engine{db: db, d: dialect.NewDialect()}, nil
}

// connConfig is pgx's configuration of a target.
func connConfig(settings map[string]string) (*pgx.ConnConfig, error) {
	dsn := settings["dsn"]
	if dsn == "" {
		return nil, errors.New("postgres: the target needs dsn = \"postgres://user@host:5432/db\"")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: dsn: %w", err)
	}
	if pw := settings["password"]; pw != "" {
		cfg.Password = pw
	}
	// Every session runs in UTC whatever the DSN's options or the role's
	// and database's defaults say (a startup parameter outranks both):
	// TIMESTAMP window literals compared with a timestamptz column, and
	// DATE bounds of day windows, are then UTC instants.
	cfg.RuntimeParams["timezone"] = "UTC"
	// A query runs in one round trip (extended protocol, unnamed
	// statement). pgx's default prepares and caches each query's text
	// first: a unit's queries (its columns, counts, checks) are new text
	// every time, so that was two round trips each and an evicted cache.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	return cfg, nil
}

// Session pins one connection.
func (e *Engine) Session(ctx context.Context) (adapters.Session, error) {
	c, err := sqlgen.Pin(ctx, "postgres", e.db)
	if err != nil {
		return nil, err
	}
	return &session{Session: sqlgen.Session{Conn: c, Gen: e.d.Gen}}, nil
}

// session adds PostgreSQL's DETAIL to a failed statement's error: it names
// what pgx's message leaves out ("rule _RETURN on view v depends on column
// "a"" when a view blocks a column's new type).
type session struct{ sqlgen.Session }

// Exec runs one step.
func (s *session) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	n, err := s.Session.Exec(ctx, st)
	var pe *pgconn.PgError
	if err != nil && errors.As(err, &pe) && pe.Detail != "" {
		err = fmt.Errorf("%w: %s", err, pe.Detail)
	}
	return n, err
}

// LoadSeed replaces r's rows with the seed's through COPY (pgx CopyFrom,
// values in their kinds), in one transaction. An existing table with the
// same columns and types is truncated (so views on it survive); otherwise
// it is dropped and created from the seed's kinds.
func (e *Engine) LoadSeed(ctx context.Context, r plan.Relation, t *seed.Table) (int64, error) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var n int64
	err = conn.Raw(func(driverConn any) error {
		pc := driverConn.(*stdlib.Conn).Conn()
		tx, err := pc.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		// The lock a unit writing r takes: concurrent loads of a seed
		// that must be created or recreated would race in the catalog.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", e.d.LockKey(&plan.Write{Target: r})); err != nil {
			return err
		}
		same, err := e.sameColumns(ctx, tx, r, t)
		if err != nil {
			return err
		}
		if same {
			if _, err := tx.Exec(ctx, "TRUNCATE "+e.d.Qualify(r)); err != nil {
				return err
			}
		} else if err := e.recreateSeedTable(ctx, tx, r, t); err != nil {
			return err
		}
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c.Name
		}
		n, err = tx.CopyFrom(ctx, identifier(r), cols, pgx.CopyFromRows(copyRows(t)))
		if err != nil {
			return err
		}
		return tx.Commit(ctx)
	})
	return n, err
}

// recreateSeedTable replaces a seed table whose columns or types changed.
// Views bind to a table's columns, so the views that read it are read from
// the catalog, dropped with it (CASCADE) and recreated, each under a
// savepoint: one whose definition no longer binds (it read a column the
// seed dropped) stays dropped; if it is a model, its unit, which reads the
// seed and so runs after it in this build, creates it anew.
func (e *Engine) recreateSeedTable(ctx context.Context, tx pgx.Tx, r plan.Relation, t *seed.Table) error {
	var views []plan.ViewDef
	rows, err := tx.Query(ctx, e.d.DependentViewsQuery(r))
	if err != nil {
		return err
	}
	for rows.Next() {
		var v plan.ViewDef
		if err := rows.Scan(&v.Relation.Schema, &v.Relation.Name, &v.SQL); err != nil {
			rows.Close()
			return err
		}
		views = append(views, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, e.d.DropTable(r)); err != nil {
		return fmt.Errorf("replacing %s (its columns or their types changed): %w", e.d.Qualify(r), err)
	}
	if _, err := tx.Exec(ctx, e.d.CreateSeedTable(r, t)); err != nil {
		return err
	}
	for _, v := range views {
		if _, err := tx.Exec(ctx, "SAVEPOINT idemc_view"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, e.d.CreateView(v)); err != nil {
			if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT idemc_view"); err != nil {
				return err
			}
		}
	}
	return nil
}

// identifier is r as pgx quotes it for COPY.
func identifier(r plan.Relation) pgx.Identifier {
	var id pgx.Identifier
	for _, part := range []string{r.Database, r.Schema} {
		if part != "" {
			id = append(id, part)
		}
	}
	return append(id, r.Name)
}

// copyRows are the seed's rows as pgx encodes them: a decimal as a
// pgtype.Numeric (COPY's binary numeric needs the integer and exponent),
// the other kinds as they are.
func copyRows(t *seed.Table) [][]any {
	var decimals []int
	for j, c := range t.Columns {
		if _, _, ok := c.Kind.Decimal(); ok {
			decimals = append(decimals, j)
		}
	}
	if len(decimals) == 0 {
		return t.Rows
	}
	rows := make([][]any, len(t.Rows))
	for i, row := range t.Rows {
		rows[i] = slices.Clone(row)
		for _, j := range decimals {
			if d, ok := row[j].(seed.Decimal); ok {
				rows[i][j] = pgtype.Numeric{Int: d.Unscaled, Exp: int32(-d.Scale), Valid: true}
			}
		}
	}
	return rows
}

func (e *Engine) sameColumns(ctx context.Context, tx pgx.Tx, r plan.Relation, t *seed.Table) (bool, error) {
	// format_type spells a type with its modifiers (numeric(18,2)) as the
	// dialect's seed types do; information_schema's data_type drops them.
	rows, err := tx.Query(ctx, "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum", e.d.Qualify(r))
	if err != nil {
		return false, err
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return false, err
		}
		if i >= len(t.Columns) || t.Columns[i].Name != name || !strings.EqualFold(e.d.SeedType(t.Columns[i].Kind), typ) {
			return false, nil
		}
		i++
	}
	return i == len(t.Columns) && i > 0, rows.Err()
}

// HoldRun takes a session advisory lock named by the run id on a dedicated
// connection, held until release (or until the process dies).
func (e *Engine) HoldRun(ctx context.Context, runID string) (func(), error) {
	c, err := e.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := c.ExecContext(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", "idemc-run:"+runID); err != nil {
		c.Close()
		return nil, err
	}
	return func() {
		_, _ = c.ExecContext(context.Background(), "SELECT pg_advisory_unlock(hashtextextended($1, 0))", "idemc-run:"+runID)
		c.Close()
	}, nil
}

// RunAlive tries the run's lock: if it can be taken, the run is dead.
func (e *Engine) RunAlive(ctx context.Context, runID string) (bool, error) {
	c, err := e.db.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer c.Close()
	var got bool
	if err := c.QueryRowContext(ctx, "SELECT pg_try_advisory_lock(hashtextextended($1, 0))", "idemc-run:"+runID).Scan(&got); err != nil {
		return false, err
	}
	if got {
		_, _ = c.ExecContext(ctx, "SELECT pg_advisory_unlock(hashtextextended($1, 0))", "idemc-run:"+runID)
	}
	return !got, nil
}

// Close closes the pool.
func (e *Engine) Close() error { return e.db.Close() }

// LostDDLRace reports the errors of CREATE … IF NOT EXISTS when another
// session creates the same object at once: IF NOT EXISTS reads the catalog
// before writing it, so the loser fails a catalog unique index (23505 on
// pg_type, pg_namespace, pg_class) or finds the object after all (42P07
// relation, 42P06 schema, 42710 the table's row type already exists). A
// user table's unique violation is not one.
func (e *Engine) LostDDLRace(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "42P07", "42P06", "42710":
		return true
	case "23505":
		for _, idx := range []string{"pg_type_typname_nsp_index", "pg_namespace_nspname_index", "pg_class_relname_nsp_index"} {
			if pe.ConstraintName == idx || strings.Contains(pe.Message, `"`+idx+`"`) {
				return true
			}
		}
	}
	return false
}

var _ adapters.DDLRacer = (*Engine)(nil)

// Retryable reports serialization failures and deadlocks.
func (e *Engine) Retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}
