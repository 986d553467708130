package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/dashlab/dashlab/internal/safeio"
)

// parquetColumnsKey is the file metadata key holding the column order (a
// Parquet schema's group sorts its columns by name).
const parquetColumnsKey = "dashlab.sweep.columns"

// parquetRowGroup is the number of rows buffered per row group.
const parquetRowGroup = 8192

// parquetWriter writes rows to a Parquet file: point, key, sweep_points and
// sweep as INT64 and strings, the axes as strings, the metrics as optional
// doubles (null: no value), status and error as strings.
type parquetWriter struct {
	w       *parquet.Writer
	h       Header
	index   map[string]int // column -> leaf index
	buf     []parquet.Row
	written int
}

func newParquetWriter(out io.Writer, h Header) (*parquetWriter, error) {
	group := parquet.Group{colPoint: parquet.Int(64), colKey: parquet.String(), colPoints: parquet.Int(64),
		colStatus: parquet.String(), colError: parquet.String()}
	if !h.Legacy {
		group[colSweep] = parquet.String()
	}
	for _, a := range h.Axes {
		group[a] = parquet.String()
	}
	for _, m := range h.Metrics {
		group[m] = parquet.Optional(parquet.Leaf(parquet.DoubleType))
	}
	if len(group) != len(h.Columns()) {
		return nil, fmt.Errorf("parquet: two columns share a name in %v", h.Columns())
	}
	schema := parquet.NewSchema("sweep", group)
	cols, _ := json.Marshal(h.Columns())
	pw := &parquetWriter{w: parquet.NewWriter(out, schema, parquet.KeyValueMetadata(parquetColumnsKey, string(cols))), h: h, index: map[string]int{}}
	for i, path := range schema.Columns() {
		pw.index[path[0]] = i
	}
	return pw, nil
}

func (pw *parquetWriter) Write(r Row) error {
	row := make(parquet.Row, 0, len(pw.index))
	str := func(col, s string) {
		row = append(row, parquet.ByteArrayValue([]byte(s)).Level(0, 0, pw.index[col]))
	}
	row = append(row, parquet.Int64Value(int64(r.Point)).Level(0, 0, pw.index[colPoint]))
	str(colKey, r.Key)
	row = append(row, parquet.Int64Value(int64(r.Points)).Level(0, 0, pw.index[colPoints]))
	if !pw.h.Legacy {
		str(colSweep, r.Sweep)
	}
	for i, a := range pw.h.Axes {
		str(a, r.Values[i])
	}
	for i, m := range pw.h.Metrics {
		if math.IsNaN(r.Metrics[i]) {
			row = append(row, parquet.NullValue().Level(0, 0, pw.index[m]))
		} else {
			row = append(row, parquet.DoubleValue(r.Metrics[i]).Level(0, 1, pw.index[m]))
		}
	}
	str(colStatus, r.Status)
	str(colError, r.Error)
	// a row's values go in leaf-column order
	sorted := make(parquet.Row, len(row))
	for _, v := range row {
		sorted[v.Column()] = v
	}
	pw.buf = append(pw.buf, sorted)
	if len(pw.buf) >= 256 {
		if err := pw.flushBuf(); err != nil {
			return err
		}
	}
	return nil
}

func (pw *parquetWriter) flushBuf() error {
	if _, err := pw.w.WriteRows(pw.buf); err != nil {
		return err
	}
	pw.written += len(pw.buf)
	pw.buf = pw.buf[:0]
	if pw.written >= parquetRowGroup {
		pw.written = 0
		return pw.w.Flush()
	}
	return nil
}

func (pw *parquetWriter) Close() error {
	if err := pw.flushBuf(); err != nil {
		return err
	}
	return pw.w.Close()
}

// readParquet reads a sweep Parquet file, handing each row to fn. A file
// the Parquet library cannot take apart (a damaged footer or page it
// panics on) is an error, not a crash.
func readParquet(path string, fn func(Row) error) (h Header, err error) {
	defer func() {
		if r := recover(); r != nil {
			h, err = Header{}, fmt.Errorf("%s: not a readable Parquet file (%v)", path, safeio.Clip(fmt.Sprint(r)))
		}
	}()
	return readParquetFile(path, fn)
}

func readParquetFile(path string, fn func(Row) error) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Header{}, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return Header{}, fmt.Errorf("%s: %w", path, err)
	}
	meta, ok := pf.Lookup(parquetColumnsKey)
	if !ok {
		return Header{}, fmt.Errorf("%s: not a dashlab sweep file (no %s metadata)", path, parquetColumnsKey)
	}
	var cols []string
	if err := json.Unmarshal([]byte(meta), &cols); err != nil {
		return Header{}, fmt.Errorf("%s: %s: %v", path, parquetColumnsKey, err)
	}
	h, err := headerFromColumns(cols)
	if err != nil {
		return Header{}, fmt.Errorf("%s: %v", path, err)
	}
	index := map[string]int{}
	for i, p := range pf.Schema().Columns() {
		index[p[0]] = i
	}
	for _, c := range cols {
		if _, ok := index[c]; !ok {
			return Header{}, fmt.Errorf("%s: column %q missing", path, c)
		}
	}
	buf := make([]parquet.Row, 256)
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, pr := range buf[:n] {
				cells := make([]string, len(cols))
				for i, c := range cols {
					v := pr[index[c]]
					switch {
					case v.IsNull():
						cells[i] = ""
					case c == colPoint || c == colPoints:
						cells[i] = fmt.Sprint(v.Int64())
					case v.Kind() == parquet.Double:
						cells[i] = formatFloat(v.Double())
					default:
						cells[i] = string(v.ByteArray())
					}
				}
				r, rerr := rowFromCells(h, cells)
				if rerr != nil {
					rows.Close()
					return Header{}, fmt.Errorf("%s: %v", path, rerr)
				}
				if ferr := fn(r); ferr != nil {
					rows.Close()
					return Header{}, ferr
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				rows.Close()
				return Header{}, fmt.Errorf("%s: %w", path, err)
			}
		}
		rows.Close()
	}
	return h, nil
}
