package project

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// dbtEngines maps a dbt adapter type onto idemc's engine.
var dbtEngines = map[string]string{"duckdb": "duckdb", "postgres": "postgres", "redshift": "postgres", "mysql": "mysql",
	"mariadb": "mysql", "snowflake": "snowflake", "bigquery": "bigquery", "spark": "spark", "databricks": "spark"}

// dbtOutputKeys are the output keys each engine maps (the rest are
// reported once as ignored); "dsn" is idemc's own, for a whole connection
// string from one variable.
var dbtOutputKeys = map[string][]string{
	"duckdb":    {"path"},
	"postgres":  {"host", "port", "user", "password", "pass", "dbname", "database", "dsn", "sslmode"},
	"mysql":     {"server", "host", "port", "user", "username", "password", "dsn"},
	"snowflake": {"account", "user", "password", "role", "warehouse", "database", "private_key_path", "host", "port", "protocol"},
	"bigquery":  {"project", "database", "dataset", "location", "keyfile"},
	"spark":     {"host", "port", "token", "http_path", "catalog", "dsn"},
}

// envVarCall is {{ env_var('X') }} or {{ env_var('X', 'default') }},
// with an optional | as_number / | int filter (dbt's profile idiom).
var envVarCall = regexp.MustCompile(`\{\{-?\s*env_var\(\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*(?:,\s*['"]([^'"]*)['"]\s*)?\)\s*(?:\|\s*(?:as_number|as_text|int|string)\s*)?-?\}\}`)

// profileValue turns env_var calls into idemc's ${X}, read only when a
// connection opens (so secrets stay out of memory until then and are never
// printed). A default applies when X is unset at load. Other Jinja is an
// error: a profile is read before any template.
func profileValue(v string) (string, error) {
	out := envVarCall.ReplaceAllStringFunc(v, func(call string) string {
		m := envVarCall.FindStringSubmatch(call)
		if _, set := os.LookupEnv(m[1]); !set && strings.Contains(call, ",") {
			return m[2]
		}
		return "${" + m[1] + "}"
	})
	if strings.Contains(out, "{{") || strings.Contains(out, "{%") {
		return "", fmt.Errorf("only {{ env_var('NAME') }} and {{ env_var('NAME', 'default') }} are read in profiles.yml")
	}
	return out, nil
}

// profilesPath finds profiles.yml: the project folder, then
// $DBT_PROFILES_DIR, then ~/.dbt (dbt's order, docs.getdbt.com
// "About profiles.yml").
func (l *dbtLoad) profilesPath() (string, []string) {
	dirs := []string{l.p.Root}
	if d := os.Getenv("DBT_PROFILES_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".dbt"))
	}
	for _, d := range dirs {
		f := filepath.Join(d, "profiles.yml")
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			return f, dirs
		}
	}
	return "", dirs
}

// readProfiles reads the project's profile: every output is a target,
// the profile's target: the default one.
func (l *dbtLoad) readProfiles() {
	l.p.Targets = map[string]*Target{}
	file, dirs := l.profilesPath()
	if file == "" {
		l.errs.Add(DBTFileName, 0, 0, "no profiles.yml in %s: add one with profile %q and a duckdb output (docs/dbt.md)", strings.Join(dirs, ", "), l.profile)
		return
	}
	rel := file
	if r, err := filepath.Rel(l.p.Root, file); err == nil && !strings.HasPrefix(r, "..") {
		rel = filepath.ToSlash(r)
	}
	l.p.TargetsFile = rel
	text, err := os.ReadFile(file)
	if err != nil {
		l.errs.Add(rel, 0, 0, "%v", err)
		return
	}
	root := parseYAML(rel, string(text), l.errs)
	var prof *yaml.Node
	pairs(rel, "profiles.yml", root, l.errs, func(key string, _, v *yaml.Node) {
		if key == l.profile {
			prof = v
		}
	})
	if prof == nil {
		if root != nil {
			l.errs.Add(rel, 1, 0, "profiles.yml has no profile %q (dbt_project.yml's profile, else its name): add %s: with target: and outputs:", l.profile, l.profile)
		}
		return
	}
	pairs(rel, "profile "+l.profile, prof, l.errs, func(key string, k, v *yaml.Node) {
		switch key {
		case "target":
			t, err := profileValue(scalar(rel, key, v, l.errs))
			if err != nil {
				l.errs.Add(rel, v.Line, 0, "target: %v", err)
			}
			l.p.DefaultTarget = os.Expand(t, func(name string) string { return os.Getenv(name) })
		case "outputs":
			pairs(rel, "outputs", v, l.errs, func(name string, k2, out *yaml.Node) {
				if t := l.readOutput(rel, name, k2.Line, out); t != nil {
					l.p.Targets[name] = t
				}
			})
		default:
			l.errs.Add(rel, k.Line, 0, "unknown key %q in profile %s; a profile has target: and outputs:", key, l.profile)
		}
	})
	if l.p.DefaultTarget != "" && l.p.Targets[l.p.DefaultTarget] == nil {
		l.errs.Add(rel, prof.Line, 0, "profile %s: target %q is not one of its outputs%s", l.profile, l.p.DefaultTarget, didYouMean(l.p.DefaultTarget, sortedKeys(l.p.Targets)))
	}
}

// readOutput maps one output onto a target.
func (l *dbtLoad) readOutput(rel, name string, line int, out *yaml.Node) *Target {
	t := &Target{Name: name, Settings: map[string]string{}, Line: line}
	raw := map[string]string{}
	lines := map[string]int{}
	pairs(rel, "outputs."+name, out, l.errs, func(key string, k, v *yaml.Node) {
		s, err := profileValue(scalar(rel, key, v, l.errs))
		if err != nil {
			l.errs.Add(rel, k.Line, 0, "outputs.%s.%s: %v", name, key, err)
		}
		raw[key], lines[key] = s, k.Line
	})
	typ := raw["type"]
	t.Engine = dbtEngines[typ]
	if t.Engine == "" {
		l.errs.Add(rel, lines["type"], 0, "outputs.%s: type %q is not an engine idemc runs; use one of duckdb, postgres, mysql, mariadb, snowflake, bigquery, spark", name, typ)
		return nil
	}
	for key, v := range raw {
		switch {
		case key == "type":
		case key == "threads":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				l.errs.Add(rel, lines[key], 0, "outputs.%s.threads must be a whole number of at least 1, not %q", name, v)
			}
			t.Threads = n
		case key == "schema" || key == "dataset" && t.Engine == "bigquery":
			s, err := expandSchema(v, fmt.Sprintf("outputs.%s.%s", name, key), lines[key])
			if err != nil && t.SchemaErr == nil {
				t.SchemaErr = err
			}
			t.Schema = s
		case contains(dbtOutputKeys[t.Engine], key):
		default:
			l.warnIgnored("profiles.yml "+key, rel, lines[key], "idemc's "+t.Engine+" target does not read it")
		}
	}
	l.connection(t, raw, rel, lines)
	return t
}

// connection fills the target's engine settings from the output's
// connection fields: a DSN is assembled for postgres and mysql, with the
// password kept apart (never inside a string that is printed).
func (l *dbtLoad) connection(t *Target, raw map[string]string, rel string, lines map[string]int) {
	get := func(keys ...string) string {
		for _, k := range keys {
			if v := raw[k]; v != "" {
				return v
			}
		}
		return ""
	}
	if pw := get("password", "pass"); pw != "" && t.Engine != "duckdb" && t.Engine != "bigquery" {
		t.Settings["password"] = pw
	}
	switch t.Engine {
	case "duckdb":
		t.Settings["path"] = get("path")
		if t.Settings["path"] == "" {
			l.errs.Add(rel, t.Line, 0, "outputs.%s: a duckdb output needs path: target/warehouse.duckdb", t.Name)
		}
		if t.Schema == "" {
			t.Schema = "main"
		}
	case "postgres":
		if dsn := get("dsn"); dsn != "" {
			t.Settings["dsn"] = dsn
			break
		}
		// libpq key=value form: ${VAR}s expand into it as they are.
		parts := []string{}
		for _, kv := range [][2]string{{"host", get("host")}, {"port", get("port")}, {"user", get("user")}, {"dbname", get("dbname", "database")}, {"sslmode", get("sslmode")}} {
			if kv[1] != "" {
				parts = append(parts, kv[0]+"="+kv[1])
			}
		}
		t.Settings["dsn"] = strings.Join(parts, " ")
	case "mysql":
		if dsn := get("dsn"); dsn != "" {
			t.Settings["dsn"] = dsn
			break
		}
		host, port := get("server", "host"), get("port")
		if port == "" {
			port = "3306"
		}
		t.Settings["dsn"] = fmt.Sprintf("%s@tcp(%s:%s)/%s", get("user", "username"), host, port, t.Schema)
	case "snowflake", "spark":
		for _, k := range dbtOutputKeys[t.Engine] {
			if v := raw[k]; v != "" && k != "password" {
				t.Settings[k] = v
			}
		}
	case "bigquery":
		for _, k := range []string{"project", "database", "dataset", "location"} {
			if v := raw[k]; v != "" {
				t.Settings[k] = v
			}
		}
		if kf := raw["keyfile"]; kf != "" {
			t.Settings["credentials_file"] = kf
		}
	}
}
