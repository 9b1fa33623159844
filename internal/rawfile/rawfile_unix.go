//go:build unix

package rawfile

import (
	"io/fs"
	"os"
	"syscall"
)

// ReadFile is os.ReadFile for a file of about size bytes (the caller has
// its stat): open, read, close.
func ReadFile(name string, size int64) ([]byte, error) {
	fd, err := open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	b := make([]byte, 0, size+1) // +1: the read that sees the end
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := ignoringEINTR(func() (int, error) { return syscall.Read(fd, b[len(b):cap(b)]) })
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// create makes a new file holding data; an existing one is an error
// (os.IsExist).
func create(name string, data []byte) error {
	fd, err := open(name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	for len(data) > 0 {
		n, err := ignoringEINTR(func() (int, error) { return syscall.Write(fd, data) })
		if err != nil {
			syscall.Close(fd)
			_ = syscall.Unlink(name)
			return &fs.PathError{Op: "write", Path: name, Err: err}
		}
		data = data[n:]
	}
	if err := syscall.Close(fd); err != nil {
		_ = syscall.Unlink(name)
		return &fs.PathError{Op: "close", Path: name, Err: err}
	}
	return nil
}

// rename is rename(2): os.Rename first looks at newpath (an lstat) to
// refuse a folder, which rename(2) refuses too (EISDIR).
func rename(oldpath, newpath string) error {
	if _, err := ignoringEINTR(func() (int, error) { return 0, syscall.Rename(oldpath, newpath) }); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}

func open(name string, flags int, perm uint32) (int, error) {
	fd, err := ignoringEINTR(func() (int, error) { return syscall.Open(name, flags, perm) })
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return fd, nil
}

func ignoringEINTR(fn func() (int, error)) (int, error) {
	for {
		n, err := fn()
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// Equal reports whether the file name holds data, reading no more than
// one byte past it into buf (grown as needed, kept for the next call);
// exists is false when the file cannot be opened.
func Equal(name string, data []byte, buf *[]byte) (same, exists bool) {
	fd, err := open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false, false
	}
	defer syscall.Close(fd)
	if cap(*buf) < len(data)+1 {
		*buf = make([]byte, len(data)+1)
	}
	b := (*buf)[:len(data)+1]
	got := 0
	for got < len(b) {
		n, err := ignoringEINTR(func() (int, error) { return syscall.Read(fd, b[got:]) })
		if err != nil {
			return false, true
		}
		if n == 0 {
			break
		}
		got += n
	}
	return got == len(data) && string(b[:got]) == string(data), true
}
