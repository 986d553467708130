package safeio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
