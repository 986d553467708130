package safeio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestWriteFailureKeepsThePreviousFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "index.html")
	if err := WriteFile(p, []byte("old report"), 0o644); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	err := Write(p, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half a new rep")
		return full
	})
	if !errors.Is(err, full) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old report" {
		t.Errorf("previous file became %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
	if err := WriteFile(p, []byte("new report"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if b, _ := os.ReadFile(p); string(b) != "new report" || st.Mode().Perm() != 0o600 {
		t.Errorf("new file %q, mode %v", b, st.Mode())
	}
}

func TestReadLimits(t *testing.T) {
	if _, err := ReadAll(strings.NewReader(strings.Repeat("x", 11)), "x", 10); err == nil || !strings.Contains(err.Error(), "10-byte") {
		t.Errorf("11 bytes with a 10-byte limit: %v", err)
	}
	if b, err := ReadAll(strings.NewReader("0123456789"), "x", 10); err != nil || len(b) != 10 {
		t.Errorf("10 bytes with a 10-byte limit: %d, %v", len(b), err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		var tl *TooLargeError
		if _, err := ReadFile("/dev/zero"); !errors.As(err, &tl) {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}

// TestReadSized checks the reads sized from Stat: the whole file, and the
// limit enforced both from the size and from what is read.
func TestReadSized(t *testing.T) {
	fsys := fstest.MapFS{"a.csv": {Data: []byte("0123456789")}, "empty": {}}
	if b, err := ReadFS(fsys, "a.csv"); err != nil || string(b) != "0123456789" {
		t.Errorf("ReadFS: %q, %v", b, err)
	}
	if b, err := ReadFS(fsys, "empty"); err != nil || len(b) != 0 {
		t.Errorf("ReadFS of an empty file: %q, %v", b, err)
	}
	for _, limit := range []int64{9, 10} {
		f, err := fsys.Open("a.csv")
		if err != nil {
			t.Fatal(err)
		}
		b, err := readFile(f, "a.csv", limit)
		var tl *TooLargeError
		if limit == 9 && !errors.As(err, &tl) || limit == 10 && (err != nil || len(b) != 10) {
			t.Errorf("10 bytes with a %d-byte limit: %q, %v", limit, b, err)
		}
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(path); err != nil || string(b) != "x: 1\n" {
		t.Errorf("ReadFile: %q, %v", b, err)
	}
}
