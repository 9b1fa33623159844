//go:build !unix

package rawfile

import "os"

// ReadFile is os.ReadFile (size is a hint the os package does not need).
func ReadFile(name string, size int64) ([]byte, error) { return os.ReadFile(name) }

// create makes a new file holding data; an existing one is an error
// (os.IsExist).
func create(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(name)
	}
	return err
}

// Equal reports whether the file name holds data; exists is false when
// the file cannot be read.
func Equal(name string, data []byte, buf *[]byte) (same, exists bool) {
	b, err := os.ReadFile(name)
	if err != nil {
		return false, !os.IsNotExist(err)
	}
	return string(b) == string(data), true
}

func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
