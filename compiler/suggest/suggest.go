// Package suggest finds the closest known name to a misspelled one, for
// "did you mean" hints in error messages.
package suggest

// Closest returns the candidate closest to name by Levenshtein distance
// (over runes), or "" when none is within max(2, len(name)/3) edits. Ties go
// to the lexically smallest candidate, so the result does not depend on the
// order of candidates.
func Closest(name string, candidates []string) string {
	a := []rune(name)
	limit := max(2, len(a)/3)
	best, bestD := "", limit+1
	var prev, cur []int
	for _, c := range candidates {
		b := []rune(c)
		if abs(len(a)-len(b)) > limit {
			continue
		}
		prev = prev[:0]
		for j := 0; j <= len(b); j++ {
			prev = append(prev, j)
		}
		cur = append(cur[:0], prev...)
		for i := 1; i <= len(a); i++ {
			cur[0] = i
			for j := 1; j <= len(b); j++ {
				cost := 1
				if a[i-1] == b[j-1] {
					cost = 0
				}
				cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			}
			prev, cur = cur, prev
		}
		d := prev[len(b)]
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	if bestD > limit {
		return ""
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
