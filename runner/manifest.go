package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/internal/rawfile"
	"github.com/idemc/idemc/internal/valuehash"
	"github.com/idemc/idemc/plan"
)

// manifestFile is target/manifest.json: the project's graph, for tools.
const manifestFile = "manifest.json"

type manifestNode struct {
	UniqueID     string   `json:"unique_id"`
	Name         string   `json:"name"`
	Path         string   `json:"path"`
	Kind         string   `json:"kind"`
	Materialized string   `json:"materialized,omitempty"`
	Strategy     string   `json:"strategy,omitempty"`
	Relation     string   `json:"relation"`
	PartitionBy  string   `json:"partition_by,omitempty"`
	Granularity  string   `json:"granularity,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	CodeHash     string   `json:"code_hash,omitempty"`
	DependsOn    []string `json:"depends_on"`
	Checks       []string `json:"checks,omitempty"`
}

// manifestDoc is what manifest.json holds.
type manifestDoc struct {
	SchemaVersion int            `json:"schema_version"`
	Project       string         `json:"project"`
	Target        string         `json:"target"`
	Engine        string         `json:"engine"`
	Nodes         []manifestNode `json:"nodes"`
}

// manifestEntry is what target/compiled's index keeps of manifest.json,
// so that a compile whose graph did not change need not encode it (~35 ms
// of CPU at 10,000 models): the key of the document it holds, its size,
// and its time (0 while racy: the next compile compares the text).
type manifestEntry struct {
	Key   string
	Size  int64
	MTime int64
}

// writeManifest records the project's graph in target/manifest.json. (A
// build leaves target/compiled's index alone: a manifest it rewrites has
// another time than the one recorded, so the next compile writes it
// again.)
func writeManifest(root string, pl *plan.Plan, d adapters.Dialect) error {
	if err := os.MkdirAll(filepath.Join(root, "target"), 0o755); err != nil {
		return err
	}
	b, err := manifestJSON(pl, d)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(root, "target", manifestFile), b)
}

// manifestJSON is target/manifest.json's text.
func manifestJSON(pl *plan.Plan, d adapters.Dialect) ([]byte, error) {
	doc := manifestOf(pl, d)
	return doc.json()
}

func manifestOf(pl *plan.Plan, d adapters.Dialect) *manifestDoc {
	doc := &manifestDoc{SchemaVersion: ResultsSchemaVersion, Project: pl.Project, Target: pl.Target, Engine: pl.Engine}
	for _, n := range pl.Graph.Nodes() {
		node := pl.Nodes[n]
		mn := manifestNode{Name: n, Path: node.Path, Kind: "model", Materialized: node.Materialized, Strategy: node.Strategy,
			Relation: d.Qualify(node.Relation), PartitionBy: node.PartitionBy, Granularity: node.Granularity,
			Tags: node.Tags, CodeHash: node.CodeHash, DependsOn: pl.Graph.Upstream(n)}
		if node.Seed {
			mn.Kind = "seed"
		}
		if node.HTTP {
			mn.Kind = "http"
		}
		mn.UniqueID = UniqueID(mn.Kind, pl.Project, n)
		for _, ch := range node.Checks {
			mn.Checks = append(mn.Checks, ch.Name)
		}
		doc.Nodes = append(doc.Nodes, mn)
	}
	return doc
}

// json is the document's text: compact (indenting 10,000 nodes cost a
// warm compile tens of ms; tools that read it parse it).
func (doc *manifestDoc) json() ([]byte, error) {
	b, err := json.Marshal(doc)
	return append(b, '\n'), err
}

// key hashes every field of the document, and so its text.
func (doc *manifestDoc) key() (string, error) {
	b, err := valuehash.Append(nil, doc)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16]), nil
}

// updateManifest makes path hold doc's text and returns the entry to
// record. A file the index recorded with doc's key, whose size and time
// are the recorded ones, holds it already; one with doc's key recorded
// without a time (it was racy) is compared, not rewritten, when it holds
// the text.
func updateManifest(path string, doc *manifestDoc, old manifestEntry) (manifestEntry, error) {
	key, err := doc.key()
	if err == nil && key == old.Key && old.MTime != 0 {
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() == old.Size && st.ModTime().UnixNano() == old.MTime {
			return old, nil
		}
	}
	b, err := doc.json()
	if err != nil {
		return manifestEntry{}, err
	}
	var buf []byte
	if key == "" || key != old.Key {
		err = writeAtomic(path, b)
	} else if same, _ := rawfile.Equal(path, b, &buf); !same {
		err = writeAtomic(path, b)
	}
	if err != nil {
		return manifestEntry{}, err
	}
	if key == "" {
		return manifestEntry{}, nil
	}
	e := manifestEntry{Key: key, Size: int64(len(b))}
	if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) >= racyWindow && st.Size() == e.Size {
		e.MTime = st.ModTime().UnixNano()
	}
	return e, nil
}
