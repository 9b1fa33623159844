// Package rawfile reads and creates small files with one system call per
// step. os.Open offers every file it opens to the runtime's poller, which
// a regular file refuses: five system calls more per file (four fcntl,
// one epoll_ctl), 100,000 of them when idemc compile reads 10,000 model
// files and writes 10,000 units' files. Elsewhere than on Unix the os
// package does the work.
package rawfile

import (
	"bufio"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// WriteAtomic makes path hold data: written to a new file beside it
// (".<name>.<n>.tmp", mode 0644 less the umask) and renamed over it, so a
// reader sees the old text or the new one, never part of either.
func WriteAtomic(path string, data []byte) error {
	dir, base := filepath.Split(path)
	for try := 0; ; try++ {
		tmp := dir + "." + base + "." + nextName() + TempSuffix
		err := create(tmp, data)
		if os.IsExist(err) && try < 10 {
			continue // another writer's name
		}
		if err != nil {
			return err
		}
		if err := rename(tmp, path); err != nil {
			_ = os.Remove(tmp)
			return err
		}
		return nil
	}
}

// WriteAtomicStream is WriteAtomic for text that write makes as it goes
// (a cache of megabytes): written through a small buffer to a new file
// beside path, made with os.CreateTemp, then renamed over it; nothing is
// renamed when write fails. The folder is made if missing.
func WriteAtomicStream(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+base+".*"+TempSuffix)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// TempSuffix ends WriteAtomic's temporary names (which also start with a
// dot): a folder's cleaner leaves such files alone, another writer is
// about to rename one.
const TempSuffix = ".tmp"

// nextName is a random name (as os.CreateTemp's; a clash is tried again).
func nextName() string { return strconv.FormatUint(rand.Uint64(), 36) }
