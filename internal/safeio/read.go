package safeio

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxInputBytes is the largest input file (YAML spec, CSV profile, JSON)
// dashlab reads: 1 MiB. Every shipped file is under 50 KB; a YAML file of
// that size decodes into at most about 330 MB of nodes (one of 4 MiB took
// 1.3 GB).
const MaxInputBytes = 1 << 20

// TooLargeError says that an input passed its size limit.
type TooLargeError struct {
	// Name is the file (or "input" for a reader).
	Name string
	// Limit is the size limit in bytes.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than the %d-byte (%d MiB) input limit", e.Name, e.Limit, e.Limit>>20)
}

// ReadAll reads r to its end, refusing more than limit bytes (it never
// reads more than limit+1). name labels the error.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Name: name, Limit: limit}
	}
	return data, nil
}

// readFile reads an open file like ReadAll, into a buffer sized from its Stat
// when it is a regular file (a read that grows its buffer from 512 bytes
// allocates about twice the file).
func readFile(f fs.File, name string, limit int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= 0 {
		return ReadAll(f, name, limit)
	}
	if st.Size() > limit {
		return nil, &TooLargeError{Name: name, Limit: limit}
	}
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, &TooLargeError{Name: name, Limit: limit}
	}
	return buf.Bytes(), nil
}

// ReadFile reads the file at path, refusing one over MaxInputBytes.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFile(f, path, MaxInputBytes)
}

// ReadFS is ReadFile on a file system.
func ReadFS(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFile(f, name, MaxInputBytes)
}
