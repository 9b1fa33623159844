package seed

import (
	"database/sql/driver"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// MaxPrecision is the widest decimal every engine stores exactly: DuckDB,
// Spark and Snowflake stop at 38 digits (MySQL allows 65, PostgreSQL more,
// BigQuery's BIGNUMERIC 76), so a column_types decimal is refused above it
// rather than stored differently per engine.
const MaxPrecision = 38

// DecimalKind is the kind of an exact decimal column with precision p
// (total digits) and scale s (digits after the point), spelled as
// column_types writes it: decimal(18,2).
func DecimalKind(p, s int) Kind { return Kind(fmt.Sprintf("decimal(%d,%d)", p, s)) }

// Decimal reports a decimal kind's precision and scale (ok false for the
// other kinds). Decimal kinds are never inferred: a value like 1.50 stays
// a double unless column_types asks for a decimal.
func (k Kind) Decimal() (precision, scale int, ok bool) {
	s, found := strings.CutPrefix(string(k), "decimal(")
	if !found {
		return 0, 0, false
	}
	ps, found := strings.CutSuffix(s, ")")
	p, sc, found2 := strings.Cut(ps, ",")
	if !found || !found2 {
		return 0, 0, false
	}
	pi, err1 := strconv.Atoi(p)
	si, err2 := strconv.Atoi(sc)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return pi, si, true
}

// parseDecimalKind reads decimal(p,s), decimal(p) and numeric(…) as
// written by a user (any case, spaces allowed) into the canonical kind;
// ok is false when s is not a decimal type name at all, err is set when it
// is one with bad bounds.
func parseDecimalKind(s string) (k Kind, ok bool, err error) {
	l := strings.ToLower(strings.ReplaceAll(s, " ", ""))
	var args string
	for _, name := range []string{"decimal(", "numeric("} {
		if rest, found := strings.CutPrefix(l, name); found {
			args, ok = strings.CutSuffix(rest, ")")
		}
	}
	if !ok {
		return "", false, nil
	}
	ps, ss, hasScale := strings.Cut(args, ",")
	p, err1 := strconv.Atoi(ps)
	sc := 0
	var err2 error
	if hasScale {
		sc, err2 = strconv.Atoi(ss)
	}
	switch {
	case err1 != nil || err2 != nil:
		return "", true, fmt.Errorf("%q: precision and scale must be whole numbers: decimal(18,2)", s)
	case p < 1 || p > MaxPrecision:
		return "", true, fmt.Errorf("%q: precision must be 1 to %d (the widest every engine stores exactly)", s, MaxPrecision)
	case sc < 0 || sc > p:
		return "", true, fmt.Errorf("%q: scale must be 0 to the precision %d", s, p)
	}
	return DecimalKind(p, sc), true, nil
}

// Decimal is an exact value of a decimal(p,s) column: Unscaled × 10^-Scale.
// It is how seeds and HTTP sources carry such values to every engine:
// DuckDB's appender and pgx get the integer and scale, the others the
// canonical text (Value).
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

// String is the value with exactly Scale digits after the point (12.30
// for decimal(p,2)), the text every engine reads back as the same number.
func (d Decimal) String() string {
	s := new(big.Int).Abs(d.Unscaled).String()
	sign := ""
	if d.Unscaled.Sign() < 0 {
		sign = "-"
	}
	if d.Scale == 0 {
		return sign + s
	}
	if len(s) <= d.Scale {
		s = strings.Repeat("0", d.Scale-len(s)+1) + s
	}
	return sign + s[:len(s)-d.Scale] + "." + s[len(s)-d.Scale:]
}

// Value makes a Decimal a database/sql argument (its canonical text), for
// the drivers that bind seed rows as parameters (MySQL, Snowflake).
func (d Decimal) Value() (driver.Value, error) { return d.String(), nil }

// ParseDecimal reads v as a value of decimal(p,s). It never rounds: more
// fractional digits than the scale, or more digits than the precision, is
// an error naming the column type, since a seed or API value that does not
// fit would otherwise be stored differently per engine.
func ParseDecimal(v string, p, s int) (Decimal, error) {
	if strings.ContainsAny(v, "xXnN_iI/") {
		return Decimal{}, fmt.Errorf("%q is not a decimal number", v)
	}
	r, ok := new(big.Rat).SetString(v)
	if !ok {
		return Decimal{}, fmt.Errorf("%q is not a decimal number", v)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s)), nil)))
	if !r.IsInt() {
		return Decimal{}, fmt.Errorf("%q has more than %d digits after the point (decimal(%d,%d) would round it)", v, s, p, s)
	}
	u := new(big.Int).Set(r.Num())
	if limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil); new(big.Int).Abs(u).Cmp(limit) >= 0 {
		return Decimal{}, fmt.Errorf("%q has more than %d digits before the point (decimal(%d,%d))", v, p-s, p, s)
	}
	return Decimal{Unscaled: u, Scale: s}, nil
}

// DecimalOfType is the decimal kind of an engine's column type with its
// bounds as catalogs report them: DECIMAL(18,2), numeric(18,2),
// NUMBER(18,2), NUMERIC(18, 2). A bare NUMERIC (no bounds) is not one.
func DecimalOfType(typ string) (Kind, bool) {
	l := strings.ToLower(strings.ReplaceAll(typ, " ", ""))
	for _, name := range []string{"decimal(", "numeric(", "number(", "bignumeric("} {
		if rest, ok := strings.CutPrefix(l, name); ok {
			k, ok, err := parseDecimalKind("decimal(" + rest)
			if !ok || err != nil || !strings.Contains(rest, ",") {
				return "", false
			}
			return k, true
		}
	}
	return "", false
}
