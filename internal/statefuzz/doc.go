// Package statefuzz is the differential state fuzzer of DESIGN §9 and
// issue 10: it proves (or refutes) that "up to date" means "what a full
// rebuild would leave".
//
// A sequence is generated from one seed (math/rand/v2, PCG, fixed
// stream): a small project (generator.go: 1–3 CSV seeds, 2–7 models —
// views, tables, ephemerals, day-partitioned delete_insert and
// insert_overwrite, merge on ["id"] or on ["k", "id"] whose k is often
// NULL; ref() chains up to 4 deep; not_null, unique, accepted_values,
// min_rows and relationships checks; one project in three sets
// lineage_columns = true in [models], and one sequence in four toggles it
// at a random step, both drawn from a stream of their own; in one sequence
// in two, each incremental model of the common row shape has even odds of
// dbt's `{% if is_incremental() %}` filter on {{ this }}, one that keeps
// every row, from a third stream) and 6 operations (operations.go):
// edit, append or delete seed rows, retype a seed column, add or drop a
// seed column, edit a model's SQL, revert to an earlier version of the
// files, add/drop/retype a model column, toggle a model's schema or alias
// or the [seeds] schema, switch a model's materialization (view, table,
// delete_insert, insert_overwrite, merge: where the generator would allow
// that kind; the build that switches it is sometimes killed or
// interrupted), make a check fail and pass again, drop or empty a
// destination with engine SQL, kill -9 a build (IDEMC_FAULT crash rule or
// a timer), SIGINT a build, each optionally followed by `idemc retry`,
// `idemc verify`, and a build of a selection. The SQL is the subset
// DuckDB, PostgreSQL and MariaDB share.
//
// idemc runs as a user runs it: the compiled binary in the project folder,
// always with --as-of 2026-07-06T00:00:00Z. After the first build, after
// every operation's plain `idemc build`, and after every `idemc retry`, the
// warehouse is compared with an oracle: a from-scratch build of the same
// files by the same binary into a fresh warehouse (a new DuckDB file, or
// new schemas on the server), cached by file content (oracle.go).
//
// What is compared (compare.go), for every seed and every model that has
// a relation, at the location the current files give it:
//
//   - The exit code must be the oracle's (0, 1 or 2).
//   - Where every unit of the node succeeded in the oracle: the relation
//     must exist exactly when the oracle's does, be a view exactly when
//     the oracle's is, a view must be readable when the oracle's is, the
//     columns (name and type, sorted by name: order is not data) must be
//     equal, and the sorted rows must be equal. Values are compared as
//     text, floats in one printed form.
//   - Merge models are compared by their own contract, because a merge
//     never deletes a key that left the batch: on the keys the oracle
//     has, idemc's rows must be exactly the oracle's; any other key idemc
//     holds must have been in the output of some oracle earlier in the
//     same sequence, by this model whatever its materialization then (a
//     key no version of the files ever produced is a bug). No generated
//     model reads a merge model: what reads one inherits the keys it
//     kept, which no rebuild has, so no rule could tell a bug from the
//     contract.
//   - Where a unit failed or was skipped in the oracle (a failing check, a
//     duplicate merge key, an upstream failure), the promise is "all or
//     nothing": idemc's unit must fail too and leave the previous state. So
//     an unpartitioned node must hold the rows it held just before that
//     command (the warehouse is read before every command); a partitioned
//     model must hold the oracle's rows in the partitions the oracle built
//     and its previous rows in the others. Here a missing relation counts
//     as empty (the oracle creates a destination before a unit's checks
//     fail; the previous state may not have had it) and rows are compared
//     on the columns both sides have (a sync may have added columns before
//     the failed write). The relation must keep its kind (view or table);
//     a view left in place is not compared by rows: it has none of its
//     own, and shows its inputs as they are now.
//   - The row lineage columns (_idemc_run_id, _idemc_as_of) are compared
//     by name and type but not by value, since every build stamps its own
//     run id: instead, where every unit of a table or partitioned model
//     succeeded in the oracle, every row idemc holds must carry a run id
//     and the sequences' logical time.
//   - `idemc plan`, run right before every checkpoint build, must list
//     exactly the units the build runs (plancheck.go); in a sequence with
//     is_incremental() filters, a plan right after a build that exited 0
//     must list nothing (building twice is building once: a code hash
//     that depends on the warehouse would rerun the model).
//   - An interrupted build must exit 130, not die of the signal nor exit 1.
//   - The run's own audit rows, once it ended by itself (audit.go): none
//     left running, one row per unit it attempted, none for a unit it
//     claimed and never started.
//
// Not compared (but for the audit rows above): idemc's own tables (idemc_audit, idemc_runs, idemc_state)
// and relations the current files do not define (after a schema or alias
// change the old relation is an orphan, which `idemc ls --orphans` reports;
// a rebuild would not have it but it is no one's data).
//
// Watermark models are not generated: their contract (each run reads the
// window after the stored high-water mark) is intentionally not rebuild
// equivalent, and the conformance suite's watermark_reread scenario tests
// it. Checks on views are not generated either: whether a view whose
// check fails exists afterwards depends on the engine's DDL (MariaDB
// cannot roll a view back), so neither rule above would hold. Incremental
// models use on_schema_change = "sync_all_columns": "fail" is a stated
// refusal, not rebuild equivalent by design; so is a retype whose old
// values do not cast, and the text form of the c_x column holds digits.
//
// A failing sequence is shrunk (shrink.go): delta debugging over the
// operations, then simpler projects (fewer models, seeds, rows, checks),
// keeping candidates that fail with the same class (difference kind and
// the operation after which it shows). Repro (repro.go) prints it as a
// txtar archive: a testscript-style script and every version of the files.
//
// TestStateFuzz runs the fixed corpus: seeds 1..200 on DuckDB, with the
// seeds beyond it that once failed (regressionSeeds), and 1..30
// on PostgreSQL and MariaDB (skipped without servers, required with
// IDEMC_REQUIRE_LIVE=1). IDEMC_STATE_SEQUENCES overrides the counts,
// IDEMC_STATEFUZZ_PARALLEL the sequences run at once (4),
// IDEMC_STATEFUZZ_SHRINK how many failure classes are shrunk (3),
// IDEMC_STATEFUZZ_SHRINK_BUDGET the replays each may use (24) and
// IDEMC_STATEFUZZ_OUT a folder for the txtar files.
package statefuzz
