package synth

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Edit makes one random edit to a project Write made, of the kinds a
// cache must notice: a model's SQL or header, a macro, a var, the
// target's schema, a model deleted or added, a touch without change, a
// same-size edit that keeps the modification time (round 0 edits
// nothing). It says what it did. The compile caches' tests compare a
// cached compile with a cold one after each.
func Edit(dir string, rng *rand.Rand, round int) (string, error) {
	files, err := modelFiles(dir)
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("synth: no models in %s: %v", dir, err)
	}
	f := files[rng.IntN(len(files))]
	switch k := rng.IntN(9); {
	case round == 0:
		return "nothing (first compile)", nil
	case k == 0:
		b, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(f, append(b, fmt.Sprintf("\n-- edited in round %d\n", round)...), 0o644)
		}
		return "a model's SQL: " + f, err
	case k == 1:
		b, err := os.ReadFile(f)
		if err == nil && !strings.HasPrefix(string(b), "/* idemc") {
			err = os.WriteFile(f, append([]byte("/* idemc\nmaterialized = \"table\"\n*/\n"), b...), 0o644)
		}
		return "a model's header: " + f, err
	case k == 2:
		return "a macro", replace(filepath.Join(dir, "macros", "money.sql"), "* 100", fmt.Sprintf("* 100 + %d", round))
	case k == 3:
		return "a var", replace(filepath.Join(dir, "project.toml"), "source_system = \"synth", fmt.Sprintf("source_system = \"synth%d", round))
	case k == 4:
		return "the target's schema", replace(filepath.Join(dir, "project.toml"), "schema = \"main", fmt.Sprintf("schema = \"main%d", round))
	case k == 5:
		return "a model deleted: " + f, os.Remove(f)
	case k == 6:
		now := time.Now()
		return "a touch without change: " + f, os.Chtimes(f, now, now)
	case k == 7:
		st, err := os.Stat(f)
		if err != nil {
			return "", err
		}
		b, err := os.ReadFile(f)
		if i := strings.LastIndex(string(b), "SELECT"); err == nil && i >= 0 {
			copy(b[i:], "select")
			if err = os.WriteFile(f, b, 0o644); err == nil {
				err = os.Chtimes(f, st.ModTime(), st.ModTime())
			}
		}
		return "a same-size edit, modification time kept: " + f, err
	default:
		up := strings.TrimSuffix(filepath.Base(files[rng.IntN(len(files))]), ".sql")
		return "a model added reading " + up, os.WriteFile(filepath.Join(dir, "models", fmt.Sprintf("added_%d.sql", round)),
			[]byte(fmt.Sprintf("SELECT * FROM {{ ref(%q) }}\n", up)), 0o644)
	}
}

// replace replaces the first old in the file with new; the file must hold it.
func replace(path, old, new string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), old) {
		return fmt.Errorf("synth: %s has no %q", path, old)
	}
	return os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
}

// modelFiles lists the project's model files, sorted.
func modelFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, "models"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sql") {
			out = append(out, p)
		}
		return err
	})
	sort.Strings(out)
	return out, err
}
