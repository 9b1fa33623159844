package spark

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/spark-connect-go/spark/client/channel"
	sparksql "github.com/apache/spark-connect-go/spark/sql"
	sparktypes "github.com/apache/spark-connect-go/spark/sql/types"
	"google.golang.org/grpc"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/spark/dialect"
	"github.com/idemc/idemc/plan"
)

func init() {
	adapters.RegisterClient("spark", adapters.Client{Open: Open, Secrets: secrets, Where: where})
}

// executor runs SQL on one Spark session: the seam between the session
// logic and the Spark Connect client (tests replace it).
type executor interface {
	exec(ctx context.Context, sql string) error
	// written runs a DML statement and returns the rows it inserted or
	// updated (deleted, for a DELETE) from the metrics row Delta returns,
	// -1 when the statement returns none (an INSERT).
	written(ctx context.Context, sql string) (int64, error)
	query(ctx context.Context, sql string) (cols []string, types []string, rows [][]any, err error)
}

// Engine is a Spark Connect endpoint (Databricks, or Spark 3.5+ with Delta).
type Engine struct {
	open    func(ctx context.Context) (executor, error)
	catalog string
	conn    *sharedConn

	mu   sync.Mutex
	idle []executor // sessions released in a clean state, reused by Session
}

// maxIdle bounds the released sessions kept for reuse (about the threads
// of a run): spark-connect-go's SparkSession.Stop does not release a
// session on the server, so reusing them keeps the server's count of
// sessions at the run's concurrency instead of one per unit.
const maxIdle = 16

// Connection builds the Spark Connect connection string of a target: dsn
// verbatim (sc://host:port/;token=…;x-databricks-cluster-id=…), or host,
// port (15002, or 443 with a token), token and http_path, whose last
// segment is the Databricks cluster id.
func Connection(settings map[string]string) (string, error) {
	if dsn := settings["dsn"]; dsn != "" {
		if !strings.HasPrefix(dsn, "sc://") {
			return "", errors.New("spark: dsn must be a Spark Connect string, sc://host:port/;token=…")
		}
		return dsn, nil
	}
	host := settings["host"]
	if host == "" {
		return "", errors.New("spark: the target needs host (and token for Databricks) or dsn = \"sc://…\"")
	}
	port := settings["port"]
	if port == "" {
		port = "15002"
		if settings["token"] != "" {
			port = "443"
		}
	}
	s := "sc://" + host + ":" + port + "/"
	if t := settings["token"]; t != "" {
		s += ";token=" + url.PathEscape(t)
	}
	if p := strings.Trim(settings["http_path"], "/"); p != "" {
		s += ";x-databricks-cluster-id=" + p[strings.LastIndexByte(p, '/')+1:]
	}
	return s, nil
}

// Open connects to the endpoint once (one gRPC connection shared by every
// Spark session of the run).
func Open(ctx context.Context, settings map[string]string) (adapters.Engine, error) {
	cs, err := Connection(settings)
	if err != nil {
		return nil, err
	}
	b, err := channel.NewBuilder(cs)
	if err != nil {
		return nil, fmt.Errorf("spark: %w", err)
	}
	conn := &sharedConn{Builder: b}
	e := &Engine{catalog: settings["catalog"], conn: conn}
	e.open = func(ctx context.Context) (executor, error) {
		s, err := sparksql.NewSessionBuilder().WithChannelBuilder(conn).Build(ctx)
		if err != nil {
			return nil, err
		}
		x := &connectExecutor{s: s}
		// Partition windows and audit times are UTC; Spark otherwise reads
		// TIMESTAMP literals in the cluster's default zone.
		if err := x.exec(ctx, "SET spark.sql.session.timeZone = UTC"); err != nil {
			return nil, err
		}
		return x, nil
	}
	// Reach the endpoint now: an unreachable target fails before anything
	// is planned.
	x, err := e.open(ctx)
	if err == nil {
		err = x.exec(ctx, "SELECT 1")
	}
	if err != nil {
		conn.close()
		return nil, fmt.Errorf("spark: %s: %w", redactToken(cs), err)
	}
	return e, nil
}

func redactToken(cs string) string {
	if i := strings.Index(cs, ";token="); i >= 0 {
		j := strings.IndexByte(cs[i+1:], ';')
		if j < 0 {
			return cs[:i] + ";token=xxxxx"
		}
		return cs[:i] + ";token=xxxxx" + cs[i+1+j:]
	}
	return cs
}

// sharedConn is a channel builder that dials once.
type sharedConn struct {
	channel.Builder
	mu   sync.Mutex
	conn *grpc.ClientConn
}

func (c *sharedConn) Build(ctx context.Context) (*grpc.ClientConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		return c.conn, nil
	}
	conn, err := c.Builder.Build(ctx)
	if err != nil {
		return nil, err
	}
	c.conn = conn
	return conn, nil
}

func (c *sharedConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}

// Session opens a Spark session of its own for the unit: session-scoped
// settings (the Delta txnAppId) never leak between concurrent units.
// A released session whose statements all succeeded is reused (a unit's
// recipe resets the txnAppId it set); one that saw an error is dropped.
func (e *Engine) Session(ctx context.Context) (adapters.Session, error) {
	s, err := e.session(ctx)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (e *Engine) session(ctx context.Context) (*Session, error) {
	e.mu.Lock()
	if n := len(e.idle); n > 0 {
		x := e.idle[n-1]
		e.idle = e.idle[:n-1]
		e.mu.Unlock()
		return &Session{x: x, d: dialect.NewDialect(), e: e}, nil
	}
	e.mu.Unlock()
	x, err := e.open(ctx)
	if err != nil {
		return nil, fmt.Errorf("spark: %w", err)
	}
	s := &Session{x: x, d: dialect.NewDialect(), e: e}
	if e.catalog != "" {
		if err := x.exec(ctx, "USE CATALOG "+s.d.Quote(e.catalog)); err != nil {
			return nil, fmt.Errorf("spark: %w", err)
		}
	}
	return s, nil
}

func (e *Engine) release(x executor) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.idle) < maxIdle {
		e.idle = append(e.idle, x)
	}
}

// LoadSeed runs the dialect's seed load on a session of the target's
// catalog: a staging Delta table filled by INSERTs of typed literals,
// published with one CREATE OR REPLACE TABLE.
func (e *Engine) LoadSeed(ctx context.Context, r plan.Relation, t *seed.Table) (int64, error) {
	s, err := e.session(ctx)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	// Named by the run, when ctx says it, so that a load that dies with
	// its run is dropped by the next (runner.dropStaleStages).
	d, tag := dialect.NewDialect(), ""
	if run := adapters.RunOf(ctx); run != "" {
		tag = d.RunTag(run)
	}
	if err := d.RunSeedLoad(r, t, tag).Run(func(q string, _ ...any) error { return s.exec(ctx, q) }); err != nil {
		return 0, err
	}
	return int64(len(t.Rows)), nil
}

// Retryable reports a Delta commit that lost to a concurrent writer: it
// committed nothing, and the unit may run again (a publish already made is
// skipped by its txnAppId).
func (e *Engine) Retryable(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "ConcurrentAppendException") || strings.Contains(msg, "ConcurrentDeleteReadException") ||
		strings.Contains(msg, "ConcurrentDeleteDeleteException") || strings.Contains(msg, "ConcurrentTransactionException") ||
		strings.Contains(msg, "MetadataChangedException") || strings.Contains(msg, "DELTA_CONCURRENT")
}

// LostDDLRace reports a CREATE … IF NOT EXISTS that met another
// session's create of the same relation half done: Delta committed the
// table's first version at its location, the catalog does not list it yet
// (DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION), or the catalog listed it
// between the statement's check and its own entry. The other session may
// be a killed run's: Spark Connect finishes an operation whose client is
// gone, so the rerun that follows a kill can meet its create (a fault
// trial did: the rerun failed creating the audit table). Run again, the
// statement finds the relation and does nothing.
func (e *Engine) LostDDLRace(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION") ||
		strings.Contains(msg, "TABLE_OR_VIEW_ALREADY_EXISTS") || strings.Contains(msg, "SCHEMA_ALREADY_EXISTS")
}

var _ adapters.DDLRacer = (*Engine)(nil)

// Delta commits optimistically: concurrent writes of one table conflict
// (a REPLACE WHERE on an unpartitioned table with every other write of
// it), and a local Spark takes seconds per commit while a wave of
// partitions contends, so a unit retries for minutes, not four quick
// tries (each round, one of the contenders commits).
const (
	retryBudget = 3 * time.Minute
	retryFirst  = time.Second
)

// RetryBackoff is the runner's budget for retrying a unit whose commit
// lost to a concurrent writer: three minutes, waits doubling from a
// second, with jitter.
func (e *Engine) RetryBackoff() (budget, first time.Duration) {
	return retryBudget, retryFirst
}

// Close closes the gRPC connection.
func (e *Engine) Close() error {
	if e.conn != nil {
		e.conn.close()
	}
	return nil
}

// connectExecutor runs SQL through Spark Connect.
type connectExecutor struct {
	s sparksql.SparkSession
}

func (c *connectExecutor) exec(ctx context.Context, q string) error {
	_, err := c.s.Sql(ctx, q)
	return err
}

func (c *connectExecutor) written(ctx context.Context, q string) (int64, error) {
	df, err := c.s.Sql(ctx, q)
	if err != nil {
		return -1, err
	}
	rows, err := df.Collect(ctx)
	if err != nil || len(rows) != 1 {
		return -1, err
	}
	return metricRows(rows[0].FieldNames(), rows[0].Values()), nil
}

func (c *connectExecutor) query(ctx context.Context, q string) ([]string, []string, [][]any, error) {
	df, err := c.s.Sql(ctx, q)
	if err != nil {
		return nil, nil, nil, err
	}
	schema, err := df.Schema(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	cols := make([]string, len(schema.Fields))
	types := make([]string, len(schema.Fields))
	for i, f := range schema.Fields {
		cols[i] = f.Name
		types[i] = strings.ToUpper(f.DataType.TypeName())
		if dt, ok := f.DataType.(sparktypes.DecimalType); ok {
			types[i] = fmt.Sprintf("DECIMAL(%d, %d)", dt.Precision, dt.Scale)
		}
	}
	rows, err := df.Collect(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	dts := make([]sparktypes.DataType, len(schema.Fields))
	for i, f := range schema.Fields {
		dts[i] = f.DataType
	}
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = goRow(r.Values(), dts)
	}
	return cols, types, out, nil
}

// secrets is the token of the Spark Connect string as spark-connect-go
// reads it (the token setting or a dsn's ;token=…), or the whole dsn when
// it does not parse.
func secrets(settings map[string]string) []string {
	cs, err := Connection(settings)
	if err != nil {
		return nil
	}
	b, err := channel.NewBuilder(cs)
	if err != nil {
		return []string{cs}
	}
	if t := b.Token(); t != "" {
		return []string{t, url.PathEscape(t)}
	}
	return nil
}

// where is the Spark Connect server's host and port (never the string,
// which can carry the token).
func where(settings map[string]string) string {
	cs, err := Connection(settings)
	if err != nil {
		return ""
	}
	b, err := channel.NewBuilder(cs)
	if err != nil {
		return ""
	}
	return net.JoinHostPort(b.Host(), strconv.Itoa(b.Port()))
}
