package routing

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/dashlab/dashlab/internal/safeio"
)

// maxParquetBytes bounds what a Parquet trace's column chunks unpack to
// (8 bytes per expert id of the largest trace: the ids and their list
// levels).
const maxParquetBytes = 8 * MaxEntries

// parquetRow is a Parquet trace row: the JSON Lines row's fields as
// columns, experts and weights as lists (the LIST logical type pyarrow and
// pandas write).
type parquetRow struct {
	Request int64     `parquet:"request,delta"`
	Token   int64     `parquet:"token,delta"`
	Layer   int64     `parquet:"layer,delta"`
	Experts []int32   `parquet:"experts,list" parquet-element:",dict"`
	Weights []float32 `parquet:"weights,optional,list"`
}

// DecodeParquet reads a Parquet routing trace of size bytes from r; name
// labels errors. The file has the columns request, token and layer
// (integers), experts (a list of integers) and optionally weights (a list
// of numbers), one row per token and layer in trace order, as DecodeJSONL
// reads them; errors name the row (1-based). A file the Parquet library
// cannot take apart is an error, not a crash.
func DecodeParquet(r io.ReaderAt, size int64, name string) (t *Trace, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, &Error{File: name, Reason: fmt.Sprintf("not a readable Parquet file (%v)", safeio.Clip(fmt.Sprint(p)))}
		}
	}()
	if size > MaxTraceBytes {
		return nil, &Error{File: name, Reason: fmt.Sprintf("%d bytes: larger than the limit of %d", size, MaxTraceBytes)}
	}
	f, err := parquet.OpenFile(r, size)
	if err != nil {
		return nil, &Error{File: name, Reason: "not a readable Parquet file: " + safeio.Clip(err.Error())}
	}
	if f.NumRows() > MaxEntries {
		return nil, &Error{File: name, Reason: fmt.Sprintf("%d rows: more than the limit of %d", f.NumRows(), MaxEntries)}
	}
	// The column chunks' sizes say what reading them holds in memory: a
	// file that claims more than a trace can take is refused before any
	// page is read.
	var unpacked int64
	for _, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if sz := c.MetaData.TotalUncompressedSize; sz < 0 || sz > maxParquetBytes || unpacked+sz > maxParquetBytes {
				return nil, &Error{File: name, Reason: fmt.Sprintf("its column chunks unpack to more than %d bytes", int64(maxParquetBytes))}
			} else {
				unpacked += sz
			}
		}
	}
	have := map[string]bool{}
	for _, fld := range f.Schema().Fields() {
		have[fld.Name()] = true
	}
	for _, c := range []string{"request", "token", "layer", "experts"} {
		if !have[c] {
			return nil, &Error{File: name, Reason: fmt.Sprintf("no column %q (want request, token, layer, experts and optionally weights)", c)}
		}
	}
	for c := range have {
		if c != "request" && c != "token" && c != "layer" && c != "experts" && c != "weights" {
			return nil, &Error{File: name, Reason: fmt.Sprintf("unknown column %s (want request, token, layer, experts and optionally weights)", safeio.Quote(c))}
		}
	}
	weighted := have["weights"]
	rd := parquet.NewGenericReader[parquetRow](f)
	defer rd.Close()
	b := newBuilder(name, true)
	buf := make([]parquetRow, 256)
	experts := make([]int64, 0, 16)
	var weights []float64
	row := 0
	for {
		n, rerr := rd.Read(buf)
		for i := range buf[:n] {
			row++
			pr := &buf[i]
			experts = experts[:0]
			for _, e := range pr.Experts {
				experts = append(experts, int64(e))
			}
			var w []float64
			if weighted {
				if len(pr.Weights) == 0 {
					return nil, &Error{File: name, Line: row, Row: true, Reason: "no weights: the file has a weights column, so every row needs one weight per expert"}
				}
				weights = weights[:0]
				for _, x := range pr.Weights {
					weights = append(weights, float64(x))
				}
				w = weights
			}
			if err := b.add(row, pr.Request, pr.Token, pr.Layer, experts, w); err != nil {
				return nil, err
			}
			pr.Experts, pr.Weights = pr.Experts[:0], pr.Weights[:0]
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, &Error{File: name, Line: row + 1, Row: true, Reason: "unreadable: " + safeio.Clip(rerr.Error())}
		}
		if n == 0 {
			break
		}
	}
	return b.done(false)
}

// EncodeParquet writes t as a Parquet file that DecodeParquet reads back
// (zstd-compressed; the weights column only when the trace has weights).
func EncodeParquet(w io.Writer, t *Trace) error {
	if t.HasWeights() {
		return writeRows(w, t, func(pr parquetRow) parquetRow { return pr })
	}
	return writeRows(w, t, func(pr parquetRow) unweightedRow {
		return unweightedRow{Request: pr.Request, Token: pr.Token, Layer: pr.Layer, Experts: pr.Experts}
	})
}

// unweightedRow is a row of a trace without weights.
type unweightedRow struct {
	Request int64   `parquet:"request,delta"`
	Token   int64   `parquet:"token,delta"`
	Layer   int64   `parquet:"layer,delta"`
	Experts []int32 `parquet:"experts,list" parquet-element:",dict"`
}

func writeRows[T any](w io.Writer, t *Trace, conv func(parquetRow) T) error {
	pw := parquet.NewGenericWriter[T](w, parquet.Compression(&parquet.Zstd))
	batch := make([]T, 0, 1024)
	flush := func() error {
		_, err := pw.Write(batch)
		batch = batch[:0]
		return err
	}
	for r := range t.Requests() {
		for tok := range t.Tokens(r) {
			for l, layer := range t.layers {
				pr := parquetRow{Request: t.reqIDs[r], Token: int64(tok), Layer: int64(layer), Weights: t.Weights(r, tok, l)}
				for _, e := range t.Experts(r, tok, l) {
					pr.Experts = append(pr.Experts, int32(e))
				}
				if batch = append(batch, conv(pr)); len(batch) == cap(batch) {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return pw.Close()
}
