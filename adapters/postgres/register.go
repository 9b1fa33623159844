package postgres

import "github.com/idemc/idemc/adapters"

func init() { adapters.RegisterOpen("postgres", Open) }

var _ adapters.RunLocks = (*Engine)(nil)
