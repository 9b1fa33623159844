package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The two graph shapes below are the ones on which a per-model walk of the
// graph turns quadratic; Write's project is shallow (7 layers) and hides it.

const shapeProject = "default_target = \"local\"\n[targets.local]\nengine = \"duckdb\"\npath = \"w.duckdb\"\n"

// WriteDeep writes layers × width views, each reading three views of the
// layer below: every model of the top layer depends on nearly every other
// (50 × 200: ~2,400 ancestors per top model). Model m<l>_<w> is in layer l.
func WriteDeep(dir string, layers, width int) error {
	if err := resetDirs(dir); err != nil {
		return err
	}
	w := &writer{root: dir, dirs: map[string]bool{}}
	w.file("project.toml", "name = \"deep\"\n"+shapeProject)
	for l := 0; l < layers; l++ {
		for i := 0; i < width; i++ {
			sql := "SELECT 1 AS x"
			if l > 0 {
				sql = fmt.Sprintf("SELECT a.x FROM {{ ref(\"m%d_%d\") }} AS a JOIN {{ ref(\"m%d_%d\") }} AS b ON a.x = b.x JOIN {{ ref(\"m%d_%d\") }} AS c ON a.x = c.x",
					l-1, i, l-1, (i+1)%width, l-1, (i+2)%width)
			}
			w.file(fmt.Sprintf("models/m%d_%d.sql", l, i), "/* idemc\nmaterialized = \"view\"\n*/\n"+sql+"\n")
		}
	}
	return w.err
}

// WriteFanIn writes a wide fan-in: leaves views selecting a constant, mids
// tables each reading leaves/mids of them (UNION ALL), and one table "top"
// reading every mid — a mart fed by thousands of staging models, where a
// cost per ref of a model would grow with the fan-in.
func WriteFanIn(dir string, leaves, mids int) error {
	if err := resetDirs(dir); err != nil {
		return err
	}
	w := &writer{root: dir, dirs: map[string]bool{}}
	w.file("project.toml", "name = \"fanin\"\n"+shapeProject)
	for l := 0; l < leaves; l++ {
		w.file(fmt.Sprintf("models/leaf/l%d.sql", l), fmt.Sprintf("/* idemc\nmaterialized = \"view\"\n*/\nSELECT %d AS x\n", l))
	}
	per := leaves / mids
	var top []string
	for m := 0; m < mids; m++ {
		var in []string
		for l := m * per; l < (m+1)*per; l++ {
			in = append(in, fmt.Sprintf("l%d", l))
		}
		w.file(fmt.Sprintf("models/mid/m%d.sql", m), "/* idemc\nmaterialized = \"table\"\n*/\n"+unionOf(in)+"\n")
		top = append(top, fmt.Sprintf("m%d", m))
	}
	w.file("models/top.sql", "/* idemc\nmaterialized = \"table\"\n*/\n"+unionOf(top)+"\n")
	return w.err
}

func unionOf(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString("\nUNION ALL\n")
		}
		fmt.Fprintf(&b, "SELECT x FROM {{ ref(%q) }}", n)
	}
	return b.String()
}

// resetDirs removes what a generator writes (as Write does) and makes dir.
func resetDirs(dir string) error {
	for _, sub := range []string{"models", "macros", "seeds", "tests", "target"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
	}
	return os.MkdirAll(dir, 0o755)
}
