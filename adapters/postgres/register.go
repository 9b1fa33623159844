package postgres

import "github.com/idemc/idemc/adapters"

func init() {
	adapters.Register(&adapters.Adapter{
		Name: "postgres", Dialect: NewDialect(), Capabilities: Capabilities, Open: Open,
		Docs: "one transaction per unit under pg_advisory_xact_lock; TRUNCATE + INSERT keeps grants",
	})
}

var (
	_ adapters.Dialect  = Dialect{}
	_ adapters.RunLocks = (*Engine)(nil)
)
