package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dashlab/dashlab/internal/safeio"
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
// gives. A file holding rows of another sweep, or that is not a sweep file
// at all, is refused and left as it is. The output is locked for the whole
// run (see lockOutput): a second run or a merge into it fails at once.
func RunFile(ctx context.Context, p *Plan, path string, opts RunOptions) (Summary, error) {
	format, err := formatOf(path)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{}
	points, err := p.ShardPoints(opts.Shard)
	if err != nil {
		return sum, err
	}
	sum.Points = len(points)
	release, err := lockOutput(path)
	if err != nil {
		return sum, err
	}
	defer release()
	h := p.Header()
	done := map[string]bool{}
	journal := path
	if format == FormatParquet {
		journal = JournalPath(path)
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			fh, err := readParquet(path, func(r Row) error { return p.admit(path, r, done) })
			if err != nil {
				return sum, err
			}
			if !fh.sameShape(h) {
				return sum, headerMismatch(path, fh, h)
			}
			h = fh // an older file keeps its layout
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
	if err := w.sync(); err != nil && runErr == nil {
		runErr = err
	}
	if err := w.stillAt(journal); err != nil && runErr == nil {
		runErr = err
	}
	if err := w.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return sum, runErr
	}
	sum.Complete = true
	if format == FormatParquet {
		return sum, finishParquet(path, journal, w.h)
	}
	return sum, nil
}

// admit checks that a row found in a file belongs to the plan and records
// its key as done.
func (p *Plan) admit(file string, r Row, done map[string]bool) error {
	if r.Sweep != "" && r.Sweep != p.id {
		return fmt.Errorf("%s: holds rows of sweep %s, this one is %s (another spec, or the base changed): use another output file", file, safeio.Clip(r.Sweep), p.id)
	}
	if r.Points != p.Len() {
		return fmt.Errorf("%s: holds rows of a sweep of %d points, this one has %d: use another output file", file, r.Points, p.Len())
	}
	pt, err := p.Point(r.Point)
	if err != nil || pt.Key != r.Key {
		return fmt.Errorf("%s: row of point %d has key %s, this sweep's point %d has %s: the file holds another sweep's rows (or the base changed): use another output file",
			file, r.Point, safeio.Clip(r.Key), r.Point, pt.Key)
	}
	if done[r.Key] {
		return fmt.Errorf("%s: point %d (key %s) appears twice", file, r.Point, r.Key)
	}
	done[r.Key] = true
	return nil
}

func headerMismatch(path string, have, want Header) error {
	return fmt.Errorf("%s: has columns %s; this sweep writes %s: use another output file",
		path, safeio.Clip(strings.Join(have.Columns(), ",")), safeio.Clip(strings.Join(want.Columns(), ",")))
}

// journalWriter appends whole lines to a file with one write each.
type journalWriter struct {
	f   *os.File
	buf []byte
	lf  lineFormat
	h   Header
}

// openJournal reads an existing journal (dropping a torn last row) and
// opens it for appending, writing the header to a new one. The caller holds
// the output's lock. A journal of an older layout (Header.Legacy) goes on
// in it.
func openJournal(path string, lf lineFormat, h Header, admit func(Row) error) (*journalWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	w, err := resumeJournal(f, path, lf, h, admit)
	if err != nil {
		f.Close()
	}
	return w, err
}

// resumeJournal reads the journal f (dropping a torn last row).
func resumeJournal(f *os.File, path string, lf lineFormat, h Header, admit func(Row) error) (*journalWriter, error) {
	good := int64(0)
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	} else if st.Size() > 0 {
		s, err := scanLines(path, lf, &h, admit)
		if err != nil {
			return nil, err
		}
		if s.hasHeader {
			if !s.header.sameShape(h) {
				return nil, headerMismatch(path, s.header, h)
			}
			h = s.header
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

// stillAt checks that path still names the journal being written: a file
// moved or written over it by a program that does not take the lock would
// otherwise hide this run's rows while it reported them written.
func (w *journalWriter) stillAt(path string) error {
	held, err1 := w.f.Stat()
	named, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, named) {
		return fmt.Errorf("%s: was replaced or removed while this run wrote it (by a program that does not take its lock): this run's rows are not in it; run again to complete the file", path)
	}
	return nil
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
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		if _, err := readParquet(path, collect); err != nil {
			return err
		}
	}
	if _, err := scanLines(journal, jsonlFormat{}, &h, collect); err != nil {
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
