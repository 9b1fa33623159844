package main

import "github.com/spf13/cobra"

func runnerCommands(mk func() *common) []*cobra.Command { return nil }
