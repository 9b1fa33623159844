package rawfile

import (
	"io/fs"
	"runtime"
	"time"
)

// Dir is an open folder in which files are looked at by a path relative
// to it: the kernel resolves only that path, not the folder's from the
// root again (a warm compile looks at 20,000 files and folders under
// target/compiled: half the time of os.Stat each, and no allocation).
// Elsewhere than on Linux it joins the paths and calls os.Stat.
type Dir struct {
	path    string
	fd      int // -1 when not open
	cleanup runtime.Cleanup
}

// Info is what Stat tells of a file.
type Info struct {
	Size  int64
	MTime time.Time
	Mode  fs.FileMode // the type bits and the permissions, as os.Stat's
	// CTime (nanoseconds) and Ino are the change time and inode where
	// the system tells them (Linux), else 0.
	CTime, Ino int64
}

// Path is the folder's path.
func (d *Dir) Path() string { return d.path }
