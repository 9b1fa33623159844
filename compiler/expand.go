package compiler

import (
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/compiler/render"
	"github.com/idemc/idemc/plan"
)

// expansion gathers the CTEs of the ephemeral models one query inlines,
// each once.
type expansion struct {
	ctes []string
	seen map[string]bool // made on the first ephemeral: most queries inline none
}

// expand renders the model's SQL for the target and one window, inlining
// ephemeral models as CTEs.
func (cc *compilation) expand(c *compiled, w *plan.Window) string {
	x := &expansion{}
	body := cc.expandInto(c, w, x)
	if len(x.ctes) == 0 {
		return body
	}
	return withCTEs(body, x.ctes)
}

func (cc *compilation) expandInto(c *compiled, w *plan.Window, x *expansion) string {
	d, opts, models, nodes, p := cc.d, cc.opts, cc.models, cc.plan.Nodes, cc.p
	gran := c.gran
	if gran == "" {
		gran = "day"
	}
	var start, end time.Time
	if w != nil {
		start, end = w.Start, w.End
	} else {
		start, end = c.start, opts.AsOf
		if start.IsZero() {
			start = beginningOfTime()
		}
	}
	sql := c.tpl.Expand(func(s *render.Slot) string {
		switch s.Kind {
		case render.Ref:
			if e := models[s.A]; e != nil && e.cfg.Materialized == plan.Ephemeral {
				// A long model name would make a CTE name the engine cuts
				// (two ephemerals sharing a prefix would collide).
				name := sqlgen.Derive(d.IdentLimit(), d.IdentLimit().Name, "__idemc_eph_"+s.A, "")
				if x.seen == nil {
					x.seen = map[string]bool{}
				}
				if !x.seen[s.A] {
					x.seen[s.A] = true
					inner := cc.expandInto(e, w, x)
					x.ctes = append(x.ctes, d.Quote(name)+" AS (\n"+inner+"\n)")
				}
				return d.Quote(name)
			}
			if e := models[s.A]; e != nil {
				return d.Qualify(e.rel)
			}
			return d.Qualify(nodes[s.A].Relation)
		case render.Source:
			src := p.Sources[s.A]
			return d.Qualify(plan.Relation{Database: src.Database, Schema: src.Schema, Name: src.Identifier(s.B)})
		case render.Start:
			return d.WindowLiteral(start, gran)
		case render.End:
			return d.WindowLiteral(end, gran)
		case render.Partition:
			return d.WindowLiteral(start, gran)
		case render.AsOf:
			return d.Timestamp(opts.AsOf)
		case render.SurrogateKey:
			return d.SurrogateKey(s.Exprs)
		case render.This:
			return d.Qualify(c.rel)
		case render.WatermarkStart:
			return c.watermarkStart(d, opts)
		case render.WatermarkEnd:
			return c.watermarkEnd(d, opts)
		case render.AsOfText:
			return s.Text(opts.AsOf)
		}
		return ""
	})
	return trimSQL(sql)
}

// beginningOfTime is where a model without a start, or a watermark model
// without a mark (its first run, a full refresh), starts reading.
func beginningOfTime() time.Time { return time.Unix(0, 0).UTC() }

// watermarkStart is the stored high-water mark minus overlap, or the
// beginning of time on the first run and on a full refresh.
func (c *compiled) watermarkStart(d adapters.Literals, opts Options) string {
	wm := c.cfg.Watermark
	if wm == nil {
		return d.Timestamp(c.start)
	}
	mark, ok := opts.State.HighWater(c.m.Name)
	if opts.FullRefresh {
		ok = false
	}
	if wm.Kind == "sequence" {
		if !ok {
			return "0"
		}
		if _, err := strconv.ParseFloat(mark, 64); err != nil {
			return "0"
		}
		return mark
	}
	if !ok {
		return d.Timestamp(beginningOfTime())
	}
	t, err := partition.ParseTime(strings.Replace(strings.TrimSuffix(mark, "+00"), " ", "T", 1))
	if err != nil {
		if t2, err2 := time.Parse("2006-01-02 15:04:05.999999999", mark); err2 == nil {
			t = t2
		} else {
			return d.Timestamp(beginningOfTime())
		}
	}
	if wm.Overlap != "" {
		ov, _ := time.ParseDuration(wm.Overlap)
		t = t.Add(-ov)
	}
	return d.Timestamp(t)
}

// watermarkEnd is as_of minus lag: rows newer than that may still be arriving.
func (c *compiled) watermarkEnd(d adapters.Literals, opts Options) string {
	wm := c.cfg.Watermark
	if wm != nil && wm.Kind == "sequence" {
		return "9223372036854775807"
	}
	end := opts.AsOf
	if wm != nil && wm.Lag != "" {
		lag, _ := time.ParseDuration(wm.Lag)
		end = end.Add(-lag)
	}
	return d.Timestamp(end)
}

// withCTEs puts ephemeral models' CTEs in front of a query, joining an
// existing WITH clause.
func withCTEs(body string, ctes []string) string {
	i := skipSpaceAndComments(body, 0)
	rest := body[i:]
	list := strings.Join(ctes, ",\n")
	if hasWord(rest, "with") {
		after := rest[4:]
		j := skipSpaceAndComments(after, 0)
		if hasWord(after[j:], "recursive") {
			return body[:i] + "WITH RECURSIVE " + list + ",\n" + after[j+9:]
		}
		return body[:i] + "WITH " + list + ",\n" + after
	}
	return body[:i] + "WITH " + list + "\n" + rest
}

func hasWord(s, w string) bool {
	if len(s) < len(w) || !strings.EqualFold(s[:len(w)], w) {
		return false
	}
	return len(s) == len(w) || !isIdent(s[len(w)])
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func skipSpaceAndComments(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
			i++
		case strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return len(s)
			}
			i += j + 1
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return len(s)
			}
			i += j + 4
		default:
			return i
		}
	}
	return i
}

// trimSQL removes the blank header lines, surrounding space and a trailing
// semicolon, so the SELECT can be wrapped.
func trimSQL(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasSuffix(s, ";") {
		s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	}
	return s
}
