package sweep

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/dashlab/dashlab/internal/safeio"
)

// MergeError is what [Merge] found wrong with the parts: points missing,
// points present more than once, or parts of different sweeps.
type MergeError struct {
	// Missing lists missing point indices (up to 20); NMissing counts all.
	Missing  []int
	NMissing int
	// Duplicates describes points present more than once (up to 20).
	Duplicates []string
	// Other is any other reason (parts of different sweeps, bad files).
	Other error
}

func (e *MergeError) Error() string {
	var parts []string
	if e.Other != nil {
		parts = append(parts, e.Other.Error())
	}
	if e.NMissing > 0 {
		parts = append(parts, fmt.Sprintf("%d points missing (points %v%s)", e.NMissing, e.Missing, more(e.NMissing, len(e.Missing))))
	}
	if len(e.Duplicates) > 0 {
		parts = append(parts, "present more than once: "+strings.Join(e.Duplicates, "; "))
	}
	return "merge: " + strings.Join(parts, "; ")
}

func more(n, shown int) string {
	if n > shown {
		return ", ..."
	}
	return ""
}

// Merge joins the shard files parts into out (format by extension, written
// atomically, rows in point order), checking that the parts are of one
// sweep (the same sweep column, the same number of points, the same key
// wherever two hold a point) and hold every point of it exactly once. out
// is locked while the merge runs (a sweep writing it makes the merge fail,
// and the sweep cannot start meanwhile), and an existing out that is not
// a file of the same sweep is left alone. Nothing is written when a check
// fails; the error is a *MergeError.
func Merge(out string, parts []string) error {
	if len(parts) == 0 {
		return &MergeError{Other: errors.New("no parts given")}
	}
	if _, err := formatOf(out); err != nil {
		return &MergeError{Other: err}
	}
	release, err := lockOutput(out)
	if err != nil {
		return &MergeError{Other: err}
	}
	defer release()
	if format, _ := formatOf(out); format == FormatParquet {
		if _, err := os.Stat(JournalPath(out)); err == nil {
			return &MergeError{Other: fmt.Errorf("%s: a sweep into it has not finished (%s exists): finish it, or remove both", out, JournalPath(out))}
		}
	}
	var h Header
	var rows []Row
	where := map[int]string{} // point -> file that holds it
	keys := map[int]string{}
	total := -1
	sweepID, sweepOf := "", ""
	me := &MergeError{}
	for i, part := range parts {
		ph, err := ReadRows(part, func(r Row) error {
			if total < 0 {
				total = r.Points
				sweepID, sweepOf = r.Sweep, part
			}
			if r.Points != total {
				return fmt.Errorf("%s: point %d is of a sweep of %d points, %s's of %d", part, r.Point, r.Points, parts[0], total)
			}
			if r.Sweep != sweepID {
				return fmt.Errorf("%s: point %d is of sweep %s, %s's of sweep %s: parts of different sweeps", part, r.Point, safeio.Clip(r.Sweep), sweepOf, safeio.Clip(sweepID))
			}
			if prev, dup := where[r.Point]; dup {
				if keys[r.Point] != r.Key {
					return fmt.Errorf("%s: point %d has key %s, %s's has %s: parts of different sweeps", part, r.Point, r.Key, prev, keys[r.Point])
				}
				if len(me.Duplicates) < 20 {
					me.Duplicates = append(me.Duplicates, fmt.Sprintf("point %d (key %s) in %s and %s", r.Point, r.Key, prev, part))
				}
				return nil
			}
			where[r.Point], keys[r.Point] = part, r.Key
			rows = append(rows, r)
			return nil
		})
		if err != nil {
			return &MergeError{Other: err}
		}
		if i == 0 {
			h = ph
		} else if !ph.Equal(h) {
			return &MergeError{Other: fmt.Errorf("%s has columns %s, %s has %s", part, strings.Join(ph.Columns(), ","), parts[0], strings.Join(h.Columns(), ","))}
		}
	}
	for i := range max(total, 0) {
		if _, ok := where[i]; !ok {
			me.NMissing++
			if len(me.Missing) < 20 {
				me.Missing = append(me.Missing, i)
			}
		}
	}
	if total < 0 {
		me.Other = errors.New("the parts hold no rows")
	}
	if me.NMissing > 0 || len(me.Duplicates) > 0 || me.Other != nil {
		return me
	}
	if err := canReplace(out, h, sweepID); err != nil {
		return &MergeError{Other: err}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].Point < rows[b].Point })
	return WriteFile(out, h, func(write func(Row) error) error {
		for _, r := range rows {
			if err := write(r); err != nil {
				return err
			}
		}
		return nil
	})
}

// canReplace allows a merge to write out: absent, empty, or a complete file
// of the same sweep (an earlier merge). Anything else, another sweep's rows
// or a file that is not a sweep file, is refused rather than overwritten.
func canReplace(out string, h Header, sweepID string) error {
	st, err := os.Stat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", out)
	}
	if st.Size() == 0 {
		return nil
	}
	other := ""
	oh, err := ReadRows(out, func(r Row) error {
		if r.Sweep != sweepID && other == "" {
			other = r.Sweep
		}
		return nil
	})
	switch {
	case err != nil:
		return fmt.Errorf("%s: exists and is not a complete sweep file (%v): remove it or merge into another file", out, err)
	case !oh.Equal(h):
		return fmt.Errorf("%s: exists and holds another sweep's rows (columns %s): remove it or merge into another file", out, safeio.Clip(strings.Join(oh.Columns(), ",")))
	case other != "":
		return fmt.Errorf("%s: exists and holds rows of sweep %s, the parts are of sweep %s: remove it or merge into another file", out, safeio.Clip(other), sweepID)
	}
	return nil
}
