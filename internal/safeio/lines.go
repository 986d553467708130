package safeio

import (
	"bytes"
	"fmt"
	"io"
)

// MaxLineBytes bounds one line of a line-oriented input (a CSV row, a JSON
// Lines object): 64 KiB. A trace or host-data row is under 100 bytes; a
// longer line is a malformed file, refused before it is held in memory.
const MaxLineBytes = 64 << 10

// LineTooLongError is a line that passed its limit.
type LineTooLongError struct {
	// Name is the input; Line the 1-based line number.
	Name string
	Line int
	// Limit is the line limit in bytes.
	Limit int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("%s:%d: line longer than the %d-byte limit", e.Name, e.Line, e.Limit)
}

// LineReader passes a reader through, counting lines and failing with a
// *LineTooLongError as soon as one line passes its limit, and with a
// *TooLargeError once the whole input passes its size limit. A leading
// UTF-8 byte-order mark is dropped (spreadsheets write one).
type LineReader struct {
	r          io.Reader
	name       string
	lineLimit  int
	sizeLimit  int64
	line       int   // lines begun so far (the line being read)
	cur        int   // bytes of the current line so far
	total      int64 // bytes passed through
	checkedBOM bool
	pendingBOM []byte
	err        error
}

// NewLineReader wraps r; name labels the errors. lineLimit and sizeLimit
// of zero or less mean MaxLineBytes and no size limit.
func NewLineReader(r io.Reader, name string, lineLimit int, sizeLimit int64) *LineReader {
	if lineLimit <= 0 {
		lineLimit = MaxLineBytes
	}
	return &LineReader{r: r, name: name, lineLimit: lineLimit, sizeLimit: sizeLimit, line: 1}
}

var bom = []byte("\ufeff")

// Read implements io.Reader.
func (l *LineReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if !l.checkedBOM {
		l.checkedBOM = true
		head := make([]byte, len(bom))
		n, err := io.ReadFull(l.r, head)
		head = head[:n]
		if !bytes.Equal(head, bom) {
			l.pendingBOM = head
		}
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			l.err = err
			return 0, err
		}
	}
	var n int
	var err error
	if len(l.pendingBOM) > 0 {
		n = copy(p, l.pendingBOM)
		l.pendingBOM = l.pendingBOM[n:]
	} else {
		n, err = l.r.Read(p)
	}
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			l.line++
			l.cur = 0
			continue
		}
		if l.cur++; l.cur > l.lineLimit {
			l.err = &LineTooLongError{Name: l.name, Line: l.line, Limit: l.lineLimit}
			return i, l.err
		}
	}
	l.total += int64(n)
	if l.sizeLimit > 0 && l.total > l.sizeLimit {
		l.err = &TooLargeError{Name: l.name, Limit: l.sizeLimit}
		return n, l.err
	}
	return n, err
}

// Line is the number of the line being read (1-based): the line of the
// last byte passed through, or the next one after a newline.
func (l *LineReader) Line() int { return l.line }
