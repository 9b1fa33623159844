package dialecttest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// TrailingComment ends the model's SELECT of TextCases: a model file that
// ends in a line comment.
const TrailingComment = "-- idemc: the model ends in a comment"

// TextCase is one unit's recipe, as its steps and as the printed plan.
type TextCase struct {
	Name  string
	Steps []plan.Step
}

// TextCases are the recipes of every unit of Writes and every schema
// change of Changes on the engine, each with a model that ends in a line
// comment, and the statements the engine reads its catalog with.
func TextCases(ad *adapters.Adapter) []TextCase {
	var out []TextCase
	commented := func(w *plan.Write) *plan.Write {
		c := *w
		c.Select += "\n" + TrailingComment
		return &c
	}
	for _, c := range Writes() {
		w := commented(c.Write)
		w.Checks = append(w.Checks[:len(w.Checks):len(w.Checks)], &plan.Check{Name: "expect(sum(amount) >= 0)", Kind: plan.CheckExpect, Severity: "error", Expr: "sum(amount) >= 0"})
		out = append(out, TextCase{c.Name, ad.Dialect.Recipe(w)})
	}
	for _, c := range Changes(ad) {
		out = append(out, TextCase{c.Name, sqlgen.Recipe(ad.Dialect, commented(c.Write))})
	}
	var catalog []plan.Step
	for _, q := range []string{ad.Dialect.RelationsQuery(), ad.Dialect.DefaultSchemaQuery(), ad.Dialect.DescribeQuery("SELECT 1 AS a")} {
		if q != "" {
			catalog = append(catalog, plan.Step{Purpose: plan.Prepare, SQL: q})
		}
	}
	return append(out, TextCase{"catalog queries", catalog})
}

// TextRules are what no engine's SQL may say.
type TextRules struct {
	// InsertColumns: every INSERT names its columns (a SELECT's columns
	// matched by position land in the wrong column once the model reorders
	// them or the table gained one).
	InsertColumns bool
	// NoIsTrue: no IS [NOT] TRUE/FALSE (Snowflake rejects it).
	NoIsTrue bool
	// QualifiedInfoSchema: INFORMATION_SCHEMA always has a qualifier
	// (BigQuery has no unqualified one).
	QualifiedInfoSchema bool
}

var (
	// insertInto is an INSERT [OVERWRITE] INTO and what follows its
	// destination (a quoted or plain, possibly qualified, name).
	insertInto = regexp.MustCompile("(?is)\\bINSERT\\s+(?:OVERWRITE\\s+)?INTO\\s+(?:[`\"]?[^\\s(`\"]*[`\"]?\\.)*(?:`[^`]*`|\"[^\"]*\"|[\\w$]+)\\s*(.)")
	// wholeCopy is the one INSERT allowed without a column list: every
	// row of a table into its copy made LIKE it (MySQL's aside copy), whose
	// columns are the same, in the same order, by construction.
	wholeCopy = regexp.MustCompile("(?is)^INSERT\\s+INTO\\s+\\S+\\s+SELECT\\s+\\*\\s+FROM\\s+\\S+$")
	// mergeInsert is a MERGE's WHEN NOT MATCHED THEN INSERT and what follows.
	mergeInsert = regexp.MustCompile(`(?is)\bTHEN\s+INSERT\s*(.)`)
	isTrue      = regexp.MustCompile(`(?i)\bIS\s+(NOT\s+)?(TRUE|FALSE)\b`)
	infoSchema  = regexp.MustCompile("(?i)(.?)\\bINFORMATION_SCHEMA\\b")
)

// CheckSQLText lists how the steps' SQL, and the plan printed from them
// (plan.FormatUnit, what target/compiled holds), break the rules, and a
// statement or terminator that a model's trailing line comment swallows.
func CheckSQLText(rules TextRules, steps []plan.Step) []string {
	var problems []string
	bad := func(i int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("step %d (%s): ", i+1, steps[i].Purpose)+fmt.Sprintf(format, args...))
	}
	for i, s := range steps {
		if rules.InsertColumns {
			for _, m := range insertInto.FindAllStringSubmatch(s.SQL, -1) {
				if m[1] != "(" && !wholeCopy.MatchString(s.SQL) {
					bad(i, "INSERT without a column list: %q", firstLine(m[0]))
				}
			}
			for _, m := range mergeInsert.FindAllStringSubmatch(s.SQL, -1) {
				if m[1] != "(" {
					bad(i, "MERGE's INSERT without a column list")
				}
			}
		}
		if rules.NoIsTrue && isTrue.MatchString(s.SQL) {
			bad(i, "%q: the engine rejects IS [NOT] TRUE", isTrue.FindString(s.SQL))
		}
		if rules.QualifiedInfoSchema {
			for _, m := range infoSchema.FindAllStringSubmatch(s.SQL, -1) {
				if m[1] != "." {
					bad(i, "unqualified INFORMATION_SCHEMA")
				}
			}
		}
		for _, line := range strings.Split(s.SQL, "\n") {
			if j := strings.Index(line, TrailingComment); j >= 0 && strings.TrimSpace(line[j+len(TrailingComment):]) != "" {
				bad(i, "the model's trailing comment swallows %q", strings.TrimSpace(line[j+len(TrailingComment):]))
			}
		}
	}
	var b strings.Builder
	plan.FormatUnit(&b, &plan.Unit{Model: "m", Write: &plan.Write{}, Steps: steps}, true)
	for _, line := range strings.Split(b.String(), "\n") {
		if j := strings.Index(line, TrailingComment); j >= 0 && strings.TrimSpace(line[j+len(TrailingComment):]) != "" {
			problems = append(problems, fmt.Sprintf("printed plan: the model's trailing comment swallows %q", strings.TrimSpace(line[j+len(TrailingComment):])))
		}
	}
	return problems
}
