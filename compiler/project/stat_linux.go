//go:build linux

package project

import (
	"io/fs"
	"syscall"
)

// sysStat is a file's change time and inode: a file replaced by another
// of the same size and modification time (a copy with -p, a rename over
// it, touch -r) still differs in these.
func sysStat(fi fs.FileInfo) (ctime, ino int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec), int64(st.Ino)
}
