package render

// Cached is a Rendered as plain data, for the compiler's cache under
// target/ (encoding/gob reads exported fields only).
type Cached struct {
	Text                                  string
	Slots                                 []CachedSlot
	Refs                                  []string
	Sources                               [][2]string
	UsesWindow, UsesAsOf, UsesIncremental bool
	EnvVars                               []EnvRead
	Warnings                              []string
}

// CachedSlot is a Slot as plain data (the renders never set Value).
type CachedSlot struct {
	Kind  SlotKind
	A, B  string
	Exprs []string
}

// Cache returns r as plain data.
func (r *Rendered) Cache() Cached {
	c := Cached{Text: r.text, Refs: r.Refs, Sources: r.Sources, UsesWindow: r.UsesWindow, UsesAsOf: r.UsesAsOf, UsesIncremental: r.UsesIncremental, EnvVars: r.EnvVars, Warnings: r.Warnings}
	c.Slots = make([]CachedSlot, len(r.slots))
	for i, s := range r.slots {
		c.Slots[i] = CachedSlot{Kind: s.Kind, A: s.A, B: s.B, Exprs: s.Exprs}
	}
	return c
}

// Rendered is the render c was made from.
func (c *Cached) Rendered() *Rendered {
	r := &Rendered{text: c.Text, Refs: c.Refs, Sources: c.Sources, UsesWindow: c.UsesWindow, UsesAsOf: c.UsesAsOf, UsesIncremental: c.UsesIncremental, EnvVars: c.EnvVars, Warnings: c.Warnings}
	r.slots = make([]Slot, len(c.Slots))
	for i, s := range c.Slots {
		r.slots[i] = Slot{Kind: s.Kind, A: s.A, B: s.B, Exprs: s.Exprs}
	}
	return r
}
