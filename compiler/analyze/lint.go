package analyze

// lint.go holds the rules of DESIGN §6. They read the facts parse.go extracted and the model's
// settings; nothing here knows the parser.

import (
	"strconv"
	"strings"
)

type ndKind uint8

const (
	ndTime     ndKind = iota + 1 // the wall clock: use {{ as_of }}
	ndRandom                     // random values and UUIDs
	ndSequence                   // sequence and row-id generators
)

// nondeterministic are the functions whose value changes between two runs over the same input
// (unix_timestamp only without arguments).
var nondeterministic = map[string]ndKind{
	"now": ndTime, "current_timestamp": ndTime, "current_date": ndTime, "current_time": ndTime,
	"localtime": ndTime, "localtimestamp": ndTime, "sysdate": ndTime, "curdate": ndTime,
	"curtime": ndTime, "utc_timestamp": ndTime, "utc_date": ndTime, "utc_time": ndTime,
	"unix_timestamp": ndTime, "clock_timestamp": ndTime, "statement_timestamp": ndTime, "transaction_timestamp": ndTime,
	"timeofday": ndTime, "current_datetime": ndTime, "systimestamp": ndTime, "getdate": ndTime,
	"sysdatetime": ndTime, "get_current_timestamp": ndTime, "get_current_time": ndTime, "today": ndTime,

	"rand": ndRandom, "random": ndRandom, "randn": ndRandom, "uuid": ndRandom,
	"gen_random_uuid": ndRandom, "uuid_string": ndRandom, "generate_uuid": ndRandom,
	"uuid_short": ndRandom, "uuidv4": ndRandom, "uuidv7": ndRandom, "newid": ndRandom, "sys_guid": ndRandom,

	"nextval": ndSequence, "seq1": ndSequence, "seq2": ndSequence, "seq4": ndSequence, "seq8": ndSequence,
	"monotonically_increasing_id": ndSequence,
}

const modelLevel = -1

// appendRule is L004, the one rule that needs no parse.
func appendRule(in Input) (draft, bool) {
	if !strings.EqualFold(strings.TrimSpace(in.Strategy), "append") || in.AllowAppend {
		return draft{}, false
	}
	return draft{off: modelLevel, rule: "L004", sev: Error,
		msg: `strategy "append" without allow_append: a rerun duplicates rows; add unique_key or partition_by so that a rerun replaces what it wrote, or set allow_append = true to accept`}, true
}

// notAnalysed is L000; Analyze appends " at line:col" once the position is known.
func notAnalysed(in Input, perr *parseError) draft {
	sev := Info
	if in.StrictParse {
		sev = Error
	}
	return draft{off: perr.off, rule: "L000", sev: sev, msg: "not analysed: " + perr.reason}
}

// lint appends the findings of the parse-based rules L001..L003 and L005..L007.
func lint(out []draft, in Input, keys []string, f *facts, loc *locator) []draft {
	incremental := strings.EqualFold(strings.TrimSpace(in.Materialized), "incremental")

	out = nondeterministicCalls(out, in, f, loc)
	out = windowOrder(out, keys, f, loc)

	// L003: LIMIT without ORDER BY. LIMIT 0 keeps no rows, so order cannot matter.
	offs := loc.limitOffsets()
	for i, l := range f.limits {
		if l.ordered || l.zero {
			continue
		}
		off := modelLevel
		if len(offs) == len(f.limits) {
			off = offs[i]
		}
		out = append(out, draft{off: off, rule: "L003", sev: Error,
			msg: "LIMIT without ORDER BY keeps arbitrary rows; add an ORDER BY on a unique key"})
	}

	// L005: a partitioned model that reads all input for every partition.
	if incremental && strings.TrimSpace(in.PartitionBy) != "" && !in.UsesWindow {
		out = append(out, draft{off: modelLevel, rule: "L005", sev: Warning,
			msg: "partitioned model never uses start/end/partition: every partition reads all input"})
	}

	// L006: partition and key columns must be in the output (unknowable behind a wildcard).
	if !f.firstStar {
		if col, ok := columnName(in.PartitionBy); ok && !hasColumn(f.columns, col) {
			out = append(out, draft{off: modelLevel, rule: "L006", sev: Error,
				msg: "partition_by column " + strconv.Quote(col) + " is not in the SELECT list"})
		}
		for _, k := range keys {
			if !hasColumn(f.columns, k) {
				out = append(out, draft{off: modelLevel, rule: "L006", sev: Error,
					msg: "unique_key column " + strconv.Quote(k) + " is not in the SELECT list"})
			}
		}
	}

	// L007: SELECT * in an incremental model.
	if incremental && f.star {
		out = append(out, draft{off: f.starOff, rule: "L007", sev: Warning,
			msg: "SELECT * in an incremental model: an upstream column change changes this table's schema; list the columns"})
	}
	return out
}

// nondeterministicCalls is L001.
func nondeterministicCalls(out []draft, in Input, f *facts, loc *locator) []draft {
	var names []string
	var offs []int
	for _, c := range f.calls {
		if nondeterministic[c.name] == 0 || (c.name == "unix_timestamp" && c.nargs > 0) || allowed(in.AllowNondeterministic, c.name) {
			continue
		}
		names = append(names, c.name)
		offs = append(offs, c.off)
	}
	if len(names) == 0 {
		return out
	}
	loc.fixOffsets(names, offs)
	for i, name := range names {
		shown := name
		if offs[i] < 0 || loc.called(offs[i], len(name)) {
			shown += "()"
		}
		var msg string
		switch nondeterministic[name] {
		case ndTime:
			msg = shown + " is nondeterministic; use {{ as_of }}"
		case ndRandom:
			msg = shown + " is nondeterministic; derive values from the input, e.g. {{ surrogate_key([...]) }}"
		default:
			msg = shown + " is nondeterministic: a rerun numbers rows differently; use {{ surrogate_key([...]) }}"
		}
		out = append(out, draft{off: offs[i], rule: "L001", sev: Error, msg: msg})
	}
	return out
}

// windowOrder is L002: order-dependent window functions without ORDER BY, and key columns
// computed from order-dependent window functions (ordered or not).
func windowOrder(out []draft, keys []string, f *facts, loc *locator) []draft {
	if len(f.windows) == 0 {
		return out
	}
	names := make([]string, len(f.windows))
	offs := make([]int, len(f.windows))
	for i, w := range f.windows {
		names[i], offs[i] = w.name, w.off
	}
	loc.fixOffsets(names, offs)
	for i, w := range f.windows {
		if !w.ordered {
			out = append(out, draft{off: offs[i], rule: "L002", sev: Error,
				msg: w.name + "() without ORDER BY in its OVER clause depends on arbitrary row order"})
		}
	}
	for _, k := range keys {
		for _, w := range f.keyFeeds[k] {
			off := modelLevel
			for i, x := range f.windows {
				if x.off == w.off && x.name == w.name {
					off = offs[i]
					break
				}
			}
			out = append(out, draft{off: off, rule: "L002", sev: Error,
				msg: "unique_key column " + strconv.Quote(k) + " is computed from " + w.name +
					"(): the key depends on row order; use {{ surrogate_key([...]) }}"})
		}
	}
	return out
}

func allowed(list []string, name string) bool {
	for _, a := range list {
		if normalizeName(a) == name {
			return true
		}
	}
	return false
}

// columnName returns the column a partition_by or unique_key setting names, when it is a
// plain (possibly quoted or qualified) column name rather than an expression.
func columnName(s string) (string, bool) {
	s = normalizeName(s)
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = normalizeName(s[i+1:])
	}
	if s == "" {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentChar(s[i]) && s[i] != ' ' {
			return "", false
		}
	}
	return s, true
}

func hasColumn(cols []string, c string) bool {
	for _, x := range cols {
		if x == c {
			return true
		}
	}
	return false
}

// fixOffsets makes offs[i] point at the word names[i] in the text: offsets from the AST that
// hold the word are kept; the others take the remaining occurrences of their word in text
// order, or -1 when none is left.
func (l *locator) fixOffsets(names []string, offs []int) {
	var bad []int
	for i, n := range names {
		if !isWordAt(l.text, offs[i], n) {
			bad = append(bad, i)
		}
	}
	if len(bad) == 0 {
		return
	}
	claimed := make(map[int]bool, len(names))
	for i := range names {
		if isWordAt(l.text, offs[i], names[i]) {
			claimed[offs[i]] = true
		}
	}
	free := map[string][]int{}
	for _, i := range bad {
		n := names[i]
		occ, ok := free[n]
		if !ok {
			for _, o := range l.words(n) {
				if !claimed[o] {
					occ = append(occ, o)
				}
			}
		}
		if len(occ) > 0 {
			offs[i], occ = occ[0], occ[1:]
		} else {
			offs[i] = modelLevel
		}
		free[n] = occ
	}
}
