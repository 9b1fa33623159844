package adapters

import "github.com/idemc/idemc/plan"

// The plan's data types, as the adapters package's own code names them.
type (
	Relation       = plan.Relation
	Window         = plan.Window
	State          = plan.State
	RunRow         = plan.RunRow
	Column         = plan.Column
	ViewDef        = plan.ViewDef
	ColumnChange   = plan.ColumnChange
	AuditRow       = plan.AuditRow
	Purpose        = plan.Purpose
	Step           = plan.Step
	Write          = plan.Write
	WatermarkWrite = plan.WatermarkWrite
	Check          = plan.Check
)

const (
	Prepare     = plan.Prepare
	AuditStart  = plan.AuditStart
	Begin       = plan.Begin
	Lock        = plan.Lock
	SchemaStep  = plan.SchemaStep
	Stage       = plan.Stage
	Validate    = plan.Validate
	Delete      = plan.Delete
	Insert      = plan.Insert
	Merge       = plan.Merge
	CheckStep   = plan.CheckStep
	Publish     = plan.Publish
	StateStep   = plan.StateStep
	AuditFinish = plan.AuditFinish
	Commit      = plan.Commit
	Cleanup     = plan.Cleanup
	View        = plan.View
	Table       = plan.Table
	Incremental = plan.Incremental
	Ephemeral   = plan.Ephemeral
)
