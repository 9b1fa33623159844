//go:build !linux

package rawfile

import (
	"errors"
	"os"
	"path/filepath"
)

// OpenDir opens the folder at path.
func OpenDir(path string) (*Dir, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("not a folder")}
	}
	return &Dir{path: path, fd: -1}, nil
}

// Close closes the folder.
func (d *Dir) Close() error { return nil }

// Stat is os.Stat of rel in d.
func (d *Dir) Stat(rel string) (Info, error) {
	fi, err := os.Stat(filepath.Join(d.path, rel))
	if err != nil {
		return Info{}, err
	}
	return Info{Size: fi.Size(), MTime: fi.ModTime(), Mode: fi.Mode()}, nil
}
