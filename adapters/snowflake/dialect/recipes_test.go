package dialect

import (
	"testing"

	"github.com/idemc/idemc/adapters/dialecttest"
)

// TestRecipesKeepCapabilities: every recipe shape has the order this
// engine's Capabilities promise (dialecttest.CheckRecipe).
func TestRecipesKeepCapabilities(t *testing.T) {
	dialecttest.CheckEngine(t, "snowflake")
}
