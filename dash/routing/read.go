package routing

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Formats of trace files, by extension.
const (
	// FormatJSONL is the JSON Lines trace (.jsonl, .ndjson).
	FormatJSONL = "jsonl"
	// FormatParquet is the Parquet trace (.parquet).
	FormatParquet = "parquet"
	// FormatVLLM is vLLM's routed-experts capture: responses of its
	// OpenAI-compatible server, one JSON object a line (.vllm.jsonl; see
	// DecodeVLLM).
	FormatVLLM = "vllm"
)

// FormatOf is the trace format a file name says: a name ending in
// .vllm.jsonl (or .vllm.json) is a vLLM capture, .jsonl or .ndjson a JSON
// Lines trace, .parquet a Parquet trace; "" for anything else.
func FormatOf(path string) string {
	p := strings.ToLower(path)
	switch {
	case strings.HasSuffix(p, ".vllm.jsonl") || strings.HasSuffix(p, ".vllm.json"):
		return FormatVLLM
	case strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".ndjson"):
		return FormatJSONL
	case strings.HasSuffix(p, ".parquet"):
		return FormatParquet
	}
	return ""
}

// Read reads the trace file at path in the format its name says (FormatOf).
func Read(path string) (*Trace, error) {
	if path == "" {
		return nil, &Error{File: `""`, Reason: "no routing trace file named"}
	}
	format := FormatOf(path)
	if format == "" {
		return nil, &Error{File: path, Reason: "unknown routing trace format: want a .jsonl, .parquet or .vllm.jsonl file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, &Error{File: path, Reason: "a directory, not a routing trace"}
	}
	if st.Mode().IsRegular() && st.Size() > MaxTraceBytes {
		return nil, &Error{File: path, Reason: fmt.Sprintf("%d bytes: larger than the limit of %d", st.Size(), MaxTraceBytes)}
	}
	switch format {
	case FormatParquet:
		if !st.Mode().IsRegular() {
			return nil, &Error{File: path, Reason: "a Parquet trace must be a regular file"}
		}
		return DecodeParquet(f, st.Size(), path)
	case FormatVLLM:
		return DecodeVLLM(f, path)
	}
	return DecodeJSONL(f, path)
}

// cached holds traces read by ReadCached.
var cached = struct {
	sync.Mutex
	m map[cacheKey]*Trace
}{m: map[cacheKey]*Trace{}}

type cacheKey struct {
	path string
	size int64
	mod  time.Time
}

// maxCached bounds the traces ReadCached keeps.
const maxCached = 8

// ReadCached is Read, keeping the traces it read: a sweep that builds one
// experiment per point reads a trace once while the file is unchanged (its
// absolute path, size and modification time). A bare file name that names
// no file is looked up among the traces shipped with the program
// (RegisterShipped), so that workload.routing.file names a shipped trace
// from every place a knob is set (--set, sweeps, builders).
func ReadCached(path string) (*Trace, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Read(path)
	}
	st, err := os.Stat(abs)
	if err != nil && filepath.Base(path) == path {
		if t, ok, serr := shippedTrace(path); ok {
			return t, serr
		}
	}
	if err != nil || !st.Mode().IsRegular() {
		return Read(path)
	}
	key := cacheKey{abs, st.Size(), st.ModTime()}
	cached.Lock()
	t, ok := cached.m[key]
	cached.Unlock()
	if ok {
		return t, nil
	}
	t, err = Read(path)
	if err != nil {
		return nil, err
	}
	cached.Lock()
	if len(cached.m) >= maxCached {
		clear(cached.m)
	}
	cached.m[key] = t
	cached.Unlock()
	return t, nil
}

// shipped resolves the name of a trace shipped with the program (package
// reference registers its embedded traces); nil: none registered.
var shipped struct {
	sync.Mutex
	find func(name string) (t *Trace, ok bool, err error)
}

// RegisterShipped sets how ReadCached finds a shipped trace by name: find
// reports ok false for a name it does not ship.
func RegisterShipped(find func(name string) (t *Trace, ok bool, err error)) {
	shipped.Lock()
	shipped.find = find
	shipped.Unlock()
}

func shippedTrace(name string) (*Trace, bool, error) {
	shipped.Lock()
	find := shipped.find
	shipped.Unlock()
	if find == nil {
		return nil, false, nil
	}
	return find(name)
}
