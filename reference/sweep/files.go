package sweep

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/internal/safeio"
)

// Formats are chosen by a file's extension.
const (
	// FormatCSV is a header line, then one row per line.
	FormatCSV = ".csv"
	// FormatJSONL is one JSON object per line, keys in column order.
	FormatJSONL = ".jsonl"
	// FormatParquet is a Parquet file (column order in its metadata).
	FormatParquet = ".parquet"
)

// formatOf returns a path's format.
func formatOf(path string) (string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case FormatCSV, FormatJSONL, FormatParquet:
		return ext, nil
	}
	return "", fmt.Errorf("%s: unknown output format %s: use .csv, .jsonl or .parquet", safeio.Clip(path), safeio.Quote(ext))
}

func lineFormatOf(format string) lineFormat {
	if format == FormatCSV {
		return csvFormat{}
	}
	return jsonlFormat{}
}

// ReadRows reads a complete sweep file of any format, handing each row to
// fn in file order, and returns its header. A torn last row (a run killed
// while writing) is an error: resume the sweep first.
func ReadRows(path string, fn func(Row) error) (Header, error) {
	format, err := formatOf(path)
	if err != nil {
		return Header{}, err
	}
	fn = upgradeLabels(fn)
	if format == FormatParquet {
		return readParquet(path, fn)
	}
	s, err := scanLines(path, lineFormatOf(format), nil, fn)
	if err != nil {
		return Header{}, err
	}
	if s.torn {
		return Header{}, fmt.Errorf("%s: the last row is incomplete (the run was stopped while writing it): re-run the sweep with this --out to complete it", path)
	}
	if !s.hasHeader {
		return Header{}, fmt.Errorf("%s: empty", path)
	}
	return s.header, nil
}

// rowSink takes rows and makes them durable on Close.
type rowSink interface {
	Write(Row) error
	Close() error
}

// lineWriter writes CSV or JSONL rows to a buffered file.
type lineWriter struct {
	f  *os.File
	bw *bufio.Writer
	lf lineFormat
	h  Header
}

func (w *lineWriter) Write(r Row) error {
	_, err := w.bw.WriteString(w.lf.encode(w.h, r))
	return err
}

// sync flushes the buffer and syncs the file.
func (w *lineWriter) sync() error {
	if err := w.bw.Flush(); err != nil {
		return err
	}
	return w.f.Sync()
}

func (w *lineWriter) Close() error {
	err := w.sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteFile writes rows to path atomically (a temporary file beside it,
// synced, then renamed): path holds either all of them or what it held
// before. The format follows the extension.
func WriteFile(path string, h Header, rows func(write func(Row) error) error) error {
	format, err := formatOf(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, nothing to remove
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	var sink rowSink
	var closeFile func() error
	if format == FormatParquet {
		bw := bufio.NewWriterSize(tmp, 1<<16)
		pw, err := newParquetWriter(bw, h)
		if err != nil {
			tmp.Close()
			return err
		}
		sink = pw
		closeFile = func() error {
			if err := bw.Flush(); err != nil {
				return err
			}
			if err := tmp.Sync(); err != nil {
				return err
			}
			return tmp.Close()
		}
	} else {
		lw := &lineWriter{f: tmp, bw: bufio.NewWriterSize(tmp, 1<<16), lf: lineFormatOf(format), h: h}
		if _, err := lw.bw.WriteString(lw.lf.header(h)); err != nil {
			tmp.Close()
			return err
		}
		sink = lw
		closeFile = func() error { return nil } // lineWriter.Close syncs and closes
	}
	if err := rows(sink.Write); err != nil {
		sink.Close()
		tmp.Close()
		return err
	}
	if err := sink.Close(); err != nil {
		tmp.Close()
		return err
	}
	if err := closeFile(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // not every file system syncs directories
	return nil
}

// legacyMicros matches a duration written with the ASCII "us" of files
// made before labels said "µs": a whole number token ("3us", "2.5 us",
// "{t_read: 3us}"), never letters inside a name ("dash-3us" stays).
var legacyMicros = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s{\[,:])([-+]?[0-9][0-9.eE+-]*)( ?)us($|[\s}\],])`)
})

// upgradeLabels hands fn rows whose axis values are written as labels are
// now ("3us" -> "3µs"), so that rows of files written before read like new
// ones (Table.Find, Heat, merged shards). Point keys never changed (see
// keyLabel).
func upgradeLabels(fn func(Row) error) func(Row) error {
	return func(r Row) error {
		for i, v := range r.Values {
			if strings.Contains(v, "us") {
				r.Values[i] = legacyMicros().ReplaceAllString(v, "${1}${2}${3}µs${4}")
			}
		}
		return fn(r)
	}
}
