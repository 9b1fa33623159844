package conformance

import "github.com/idemc/idemc/adapters"

// unitLocked: the engine's recipes take a unit lock that a second run
// waits on (PostgreSQL, MySQL; a claimed row of idemc_locks on Snowflake,
// BigQuery and Spark; DuckDB locks the file).
func unitLocked(engine string) bool {
	ad, ok := adapters.Lookup(engine)
	return ok && (ad.Capabilities.UnitLock || ad.Capabilities.UnitClaim || ad.Capabilities.SingleWriter)
}
