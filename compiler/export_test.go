package compiler

// ReadAhead waits until r has read its file (tests that change the file
// afterwards).
func ReadAhead(r *CacheAhead) { <-r.done }
