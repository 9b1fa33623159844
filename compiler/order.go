package compiler

// Unit ordering helpers: which planned units a unit waits for, and what a
// cycle in the model graph is called.

import (
	"fmt"
	"strings"

	"github.com/idemc/idemc/plan"
)

// cycleMessage explains a cycle; one closed by a relationships check (which
// reads the other model after both are built) gets its own remedy.
func cycleMessage(cycle []string, models map[string]*compiled) string {
	msg := "dependency cycle: " + strings.Join(cycle, " -> ")
	for i := 0; i+1 < len(cycle); i++ {
		up, down := cycle[i], cycle[i+1]
		c := models[down]
		if c == nil || contains(c.dataUp, up) || !contains(c.extraUp, up) {
			continue
		}
		return fmt.Sprintf("%s: the relationships check of %s on %s closes it (the check must run after %s is built, and %s is built from %s); move the check into tests/*.sql, or drop one of these ref() calls", msg, down, up, up, up, down)
	}
	return msg + ": remove one of these ref() calls"
}

// upstreamUnits are the units of model up that a unit of c for partition
// part waits for: the same partition when both are partitioned alike, every
// unit of up otherwise.
func upstreamUnits(unitsOf map[string][]*plan.Unit, models map[string]*compiled, up, part string, c *compiled) []*plan.Unit {
	us := unitsOf[up]
	if part != "" {
		if uc := models[up]; uc != nil && uc.gran == c.gran && uc.cfg.PartitionBy != "" {
			for _, u := range us {
				if u.Partition == part {
					return []*plan.Unit{u}
				}
			}
			return nil
		}
	}
	return us
}
