package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// syncInterval is how often appended rows are synced to disk.
const syncInterval = 500 * time.Millisecond

// Summary is what [RunFile] did.
type Summary struct {
	// Points is the number of points of the shard (or sweep).
	Points int
	// Existing is the number of the file's rows kept from an earlier run.
	Existing int
	// Ran counts the points run now; DoesNotFit and Failed those of them
	// without a result.
	Ran, DoesNotFit, Failed int
	// Complete reports whether every point of the shard has its row.
	Complete bool
}

// JournalPath is where rows for a Parquet file accumulate until the sweep
// completes (CSV and JSONL files are their own journal).
func JournalPath(path string) string { return path + ".partial.jsonl" }

// RunFile runs the plan into the file at path (CSV, JSONL or Parquet by
// extension), resuming: points whose rows the file already holds are
// skipped, and a torn last row is dropped and run again. Rows are written in
// point order and synced every half second, so a run stopped at any moment
// (Ctrl-C, kill, crash) and run again gives the file an uninterrupted run
// gives. A file holding rows of another sweep is refused.
func RunFile(ctx context.Context, p *Plan, path string, opts RunOptions) (Summary, error) {
	format, err := formatOf(path)
	if err != nil {
		return Summary{}, err
	}
	h := p.Header()
	done := map[string]bool{}
	sum := Summary{}
	points, err := p.ShardPoints(opts.Shard)
	if err != nil {
		return sum, err
	}
	sum.Points = len(points)
	journal := path
	if format == FormatParquet {
		journal = JournalPath(path)
		if _, err := os.Stat(path); err == nil {
			fh, err := readParquet(path, func(r Row) error { return p.admit(path, r, done) })
			if err != nil {
				return sum, err
			}
			if !fh.Equal(h) {
				return sum, headerMismatch(path, fh, h)
			}
		}
	}
	lf := lineFormatOf(format)
	if format == FormatParquet {
		lf = jsonlFormat{}
	}
	w, err := openJournal(journal, lf, h, func(r Row) error { return p.admit(journal, r, done) })
	if err != nil {
		return sum, err
	}
	for _, i := range points {
		pt, _ := p.Point(i)
		if done[pt.Key] {
			sum.Existing++
		}
	}
	opts.Done = func(key string) bool { return done[key] }
	lastSync := time.Now()
	runErr := p.Run(ctx, opts, func(r Row) error {
		if err := w.Write(r); err != nil {
			return err
		}
		sum.Ran++
		switch r.Status {
		case StatusDoesNotFit:
			sum.DoesNotFit++
		case StatusFailed:
			sum.Failed++
		}
		if time.Since(lastSync) >= syncInterval {
			lastSync = time.Now()
			return w.sync()
		}
		return nil
	})
	if err := w.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return sum, runErr
	}
	sum.Complete = true
	if format == FormatParquet {
		return sum, finishParquet(path, journal, h)
	}
	return sum, nil
}

// admit checks that a row found in a file belongs to the plan and records
// its key as done.
func (p *Plan) admit(file string, r Row, done map[string]bool) error {
	if r.Points != p.Len() {
		return fmt.Errorf("%s: holds rows of a sweep of %d points, this one has %d: use another output file", file, r.Points, p.Len())
	}
	pt, err := p.Point(r.Point)
	if err != nil || pt.Key != r.Key {
		return fmt.Errorf("%s: row of point %d has key %s, this sweep's point %d has %s: the file holds another sweep's rows (or the base changed): use another output file",
			file, r.Point, r.Key, r.Point, pt.Key)
	}
	if done[r.Key] {
		return fmt.Errorf("%s: point %d (key %s) appears twice", file, r.Point, r.Key)
	}
	done[r.Key] = true
	return nil
}

func headerMismatch(path string, have, want Header) error {
	return fmt.Errorf("%s: has columns %s; this sweep writes %s: use another output file",
		path, strings.Join(have.Columns(), ","), strings.Join(want.Columns(), ","))
}

// journalWriter appends whole lines to a file with one write each.
type journalWriter struct {
	f   *os.File
	buf []byte
	lf  lineFormat
	h   Header
}

// openJournal reads an existing journal (dropping a torn last row) and
// opens it for appending, writing the header to a new one.
func openJournal(path string, lf lineFormat, h Header, admit func(Row) error) (*journalWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	w, err := resumeJournal(f, path, lf, h, admit)
	if err != nil {
		f.Close()
	}
	return w, err
}

// resumeJournal reads the locked journal f (dropping a torn last row).
func resumeJournal(f *os.File, path string, lf lineFormat, h Header, admit func(Row) error) (*journalWriter, error) {
	good := int64(0)
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		s, err := scanLines(path, lf, admit)
		if err != nil {
			return nil, err
		}
		if s.hasHeader && !s.header.Equal(h) {
			return nil, headerMismatch(path, s.header, h)
		}
		good = s.good
		if s.torn {
			if err := f.Truncate(good); err != nil {
				return nil, err
			}
		}
	}
	w := &journalWriter{f: f, lf: lf, h: h}
	if good == 0 {
		w.buf = append(w.buf, lf.header(h)...)
	}
	return w, nil
}

func (w *journalWriter) Write(r Row) error {
	line := w.lf.encode(w.h, r)
	if len(w.buf)+len(line) > 1<<16 {
		if err := w.flush(); err != nil {
			return err
		}
	}
	w.buf = append(w.buf, line...)
	return nil
}

func (w *journalWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.f.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

func (w *journalWriter) sync() error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.f.Sync()
}

func (w *journalWriter) Close() error {
	err := w.sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// finishParquet writes the Parquet file from its previous rows and the
// journal's, in point order, atomically, then removes the journal.
func finishParquet(path, journal string, h Header) error {
	var rows []Row
	collect := func(r Row) error { rows = append(rows, r); return nil }
	if _, err := os.Stat(path); err == nil {
		if _, err := readParquet(path, collect); err != nil {
			return err
		}
	}
	if _, err := scanLines(journal, jsonlFormat{}, collect); err != nil {
		return err
	}
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].Point < rows[b].Point })
	err := WriteFile(path, h, func(write func(Row) error) error {
		for _, r := range rows {
			if err := write(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := os.Remove(journal); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
