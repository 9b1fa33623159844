package rawfile

import (
	"io/fs"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// OpenDir opens the folder at path.
func OpenDir(path string) (*Dir, error) {
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	d := &Dir{path: path, fd: fd}
	// A Dir dropped without Close (a compile that failed) closes its
	// descriptor when collected; Close stops that.
	d.cleanup = runtime.AddCleanup(d, func(fd int) { unix.Close(fd) }, fd)
	return d, nil
}

// Close closes the folder.
func (d *Dir) Close() error {
	if d.fd < 0 {
		return nil
	}
	d.cleanup.Stop()
	err := unix.Close(d.fd)
	d.fd = -1
	return err
}

// Stat is os.Stat of rel in d: it follows a link.
func (d *Dir) Stat(rel string) (Info, error) {
	var st unix.Stat_t
	err := unix.Fstatat(d.fd, rel, &st, 0)
	for err == unix.EINTR {
		err = unix.Fstatat(d.fd, rel, &st, 0)
	}
	if err != nil {
		return Info{}, &fs.PathError{Op: "stat", Path: filepath.Join(d.path, rel), Err: err}
	}
	return Info{Size: st.Size, MTime: time.Unix(st.Mtim.Sec, st.Mtim.Nsec), Mode: fileMode(st.Mode),
		CTime: st.Ctim.Sec*1e9 + st.Ctim.Nsec, Ino: int64(st.Ino)}, nil
}

// fileMode is os's reading of st_mode (os.fillFileStatFromSys).
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
