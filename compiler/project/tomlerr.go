package project

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/idemc/idemc/compiler/diag"
)

// examples show each setting written correctly, for type errors.
var examples = map[string]string{
	"name":                   `name = "my_project"`,
	"default_target":         `default_target = "local"`,
	"threads":                `threads = 4`,
	"schema":                 `schema = "analytics"`,
	"database":               `database = "raw"`,
	"tables":                 `tables = ["events", "users"]`,
	"materialized":           `materialized = "table"`,
	"strategy":               `strategy = "delete_insert"`,
	"partition_by":           `partition_by = "event_date"`,
	"granularity":            `granularity = "day"`,
	"start":                  `start = "2026-07-01"`,
	"lookback":               `lookback = 1`,
	"unique_key":             `unique_key = ["event_key"]`,
	"watermark":              `watermark = { column = "updated_at", lag = "15m" }`,
	"merge_update_columns":   `merge_update_columns = ["amount", "status"]`,
	"merge_exclude_columns":  `merge_exclude_columns = ["created_at"]`,
	"on_schema_change":       `on_schema_change = "append_new_columns"`,
	"alias":                  `alias = "events"`,
	"allow_append":           `allow_append = true`,
	"allow_nondeterministic": `allow_nondeterministic = ["random"]`,
	"strict_parse":           `strict_parse = true`,
	"tags":                   `tags = ["daily"]`,
	"description":            `description = "one row per event and day"`,
	"checks":                 "[checks] with one check per line: min_rows = 1",
	"drift":                  driftExample,
	"column":                 `column = "updated_at"`,
	"kind":                   `kind = "sequence"`,
	"lag":                    `lag = "15m"`,
	"overlap":                `overlap = "1h"`,
}

// tomlError turns a BurntSushi error into a positioned one. lineOffset is
// added to the line for TOML embedded in a model file; it must be 0 when the
// TOML text is the whole file.
func tomlError(path string, lineOffset int, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if m, ok := typeMessage(pe.LastKey, msg); ok && pe.LastKey != "" {
			msg = m
		} else {
			msg = "invalid TOML: " + pe.Message
			if pe.LastKey != "" {
				msg += fmt.Sprintf(" (key %s)", pe.LastKey)
			}
			msg += syntaxHint(pe.LastKey, pe.Message)
		}
		return diag.Errorf(path, lineOffset+pe.Position.Line, pe.Position.Col, "%s", msg)
	}
	msg := err.Error()
	line := 0
	if m := tomlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(msg[len(m[0]):], " ")
		if key, err := strconv.Unquote(m[2]); err == nil && key != "" {
			if nice, ok := typeMessage(key, msg); ok {
				msg = nice
			}
		}
	}
	msg = strings.TrimPrefix(msg, "toml: ")
	if line > 0 {
		line += lineOffset
	}
	return diag.Errorf(path, line, 0, "%s", msg)
}

// tomlLine matches the prefix of BurntSushi's decode errors; the last key may
// hold escaped quotes (models."staging/*".lookback).
var tomlLine = regexp.MustCompile(`^toml: line (\d+)(?: \(last key ("(?:[^"\\]|\\.)*")\))?:`)

var (
	incompatible  = regexp.MustCompile(`^incompatible types: TOML value has type (.+); destination has type (.+)$`)
	tableMismatch = regexp.MustCompile(`^type mismatch for .+: expected table but found (.+)$`)
	listMismatch  = regexp.MustCompile(`^must be (.+), not (.+)$`)
)

// typeMessage rewrites a decoder's type error for key as "key must be X, not
// Y; write it like …".
func typeMessage(key, msg string) (string, bool) {
	var want, got string
	if m := incompatible.FindStringSubmatch(msg); m != nil {
		got, want = describeGo(m[1]), describeGo(m[2])
	} else if m := tableMismatch.FindStringSubmatch(msg); m != nil {
		got, want = describeGo(m[1]), "a table"
	} else if m := listMismatch.FindStringSubmatch(msg); m != nil {
		want, got = m[1], m[2]
	} else {
		return "", false
	}
	leaf := key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		leaf = key[i+1:]
	}
	out := fmt.Sprintf("%s must be %s, not %s", key, want, got)
	if ex, ok := examples[leaf]; ok {
		out += "; write it like " + ex
	}
	return out, true
}

// describeGo names a Go or TOML type the way a TOML user thinks of it.
func describeGo(t string) string {
	switch {
	case t == "string":
		return "a quoted string"
	case t == "int64" || t == "integer" || strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "a whole number"
	case t == "float64" || t == "float":
		return "a decimal number"
	case t == "bool" || t == "boolean":
		return "true or false"
	case strings.HasPrefix(t, "time.") || strings.HasPrefix(t, "toml.Local"):
		return "an unquoted date or time (put it in quotes)"
	case t == "slice" || t == "array" || strings.HasPrefix(t, "[]"):
		return "a list"
	case t == "map" || t == "struct" || strings.HasPrefix(t, "map["):
		return "a table"
	}
	return t
}

// describeValue names the TOML type of a decoded value.
func describeValue(v any) string {
	switch v.(type) {
	case string:
		return "a quoted string"
	case int64:
		return "a whole number"
	case float64:
		return "a decimal number"
	case bool:
		return "true or false"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	}
	return describeGo(fmt.Sprintf("%T", v))
}

var bareWord = regexp.MustCompile(`^expected value but found "([A-Za-z_][A-Za-z0-9_-]*)" instead$`)

// syntaxHint says how to fix the common TOML mistakes.
func syntaxHint(key, msg string) string {
	leaf := key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		leaf = key[i+1:]
	}
	switch {
	case bareWord.MatchString(msg):
		return fmt.Sprintf("; put text in quotes: %s = %q", leaf, bareWord.FindStringSubmatch(msg)[1])
	case strings.Contains(msg, "strings cannot contain newlines"):
		return "; close the quote on the same line"
	case strings.HasPrefix(msg, "unexpected EOF"):
		return "; a quote, [ or { opened here is not closed"
	case strings.Contains(msg, "has already been defined"):
		return "; set each key once"
	case strings.HasPrefix(msg, "invalid datetime"):
		return fmt.Sprintf("; write dates as quoted text: %s = \"2026-07-01\"", leaf)
	case strings.Contains(msg, "to end with a newline"):
		return "; put each setting on its own line"
	}
	return ""
}
