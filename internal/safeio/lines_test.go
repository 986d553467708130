package safeio

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	read := func(in string, lineLimit int, sizeLimit int64) (string, error) {
		b, err := io.ReadAll(NewLineReader(strings.NewReader(in), "f", lineLimit, sizeLimit))
		return string(b), err
	}
	if got, err := read("\ufeffa,b\n1,2\n", 10, 0); err != nil || got != "a,b\n1,2\n" {
		t.Errorf("BOM: %q, %v", got, err)
	}
	if got, err := read("ab", 10, 0); err != nil || got != "ab" {
		t.Errorf("short input: %q, %v", got, err)
	}
	var ll *LineTooLongError
	if _, err := read("ok\n"+strings.Repeat("x", 11)+"\n", 10, 0); !errors.As(err, &ll) || ll.Line != 2 || !strings.Contains(err.Error(), "f:2: line longer than the 10-byte limit") {
		t.Errorf("long line: %v", err)
	}
	var tl *TooLargeError
	if _, err := read(strings.Repeat("x\n", 20), 10, 30); !errors.As(err, &tl) {
		t.Errorf("large input: %v", err)
	}
}

func TestClip(t *testing.T) {
	if Clip("short") != "short" || Quote("a\"b") != `"a\"b"` {
		t.Error("short values changed")
	}
	long := strings.Repeat("é", 100) // 200 bytes: the cut falls inside a rune
	c := Clip(long)
	if !strings.HasSuffix(c, "... (200 bytes)") || len(c) > MaxEcho+20 || !strings.HasPrefix(long, strings.TrimSuffix(c, "... (200 bytes)")) {
		t.Errorf("Clip: %q", c)
	}
	if q := Quote(long); !strings.HasPrefix(q, `"é`) || !strings.HasSuffix(q, `"... (200 bytes)`) {
		t.Errorf("Quote: %q", q)
	}
}
