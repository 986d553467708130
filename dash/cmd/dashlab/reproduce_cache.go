package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dashlab/dashlab/internal/resultcache"
	"github.com/dashlab/dashlab/reference"
)

// reproduceCache is the result cache of one reproduce command: its key
// (the binary's build, the embedded data's hash, the command line and
// the environment that changes the output, outputEnv) and
// what the command prints and writes, recorded for storing. A nil
// *reproduceCache (--no-cache, or no cache directory) does nothing.
type reproduceCache struct {
	c      resultcache.Cache
	key    string
	inputs []string
	stderr io.Writer
	out    bytes.Buffer
	files  map[string][]byte
}

// outputEnv are the environment variables that change what reproduce
// writes (DASHLAB_STATIC=0 leaves the static images out of the report's
// charts): part of the cache key, as the command line is.
var outputEnv = []string{"DASHLAB_STATIC"}

// openReproduceCache keys the command; it returns nil, with a warning,
// when there is no cache to use.
func openReproduceCache(args []string, stderr io.Writer) *reproduceCache {
	c, err := resultcache.Open("reproduce")
	if err == nil {
		inputs := append([]string{"dashlab reproduce"}, args...)
		for _, v := range outputEnv { // the environment that changes what is written
			inputs = append(inputs, v+"="+os.Getenv(v))
		}
		var key string
		if key, err = resultcache.Key(reference.DataHash(), inputs...); err == nil {
			return &reproduceCache{c: c, key: key, inputs: inputs, stderr: stderr}
		}
	}
	fmt.Fprintf(stderr, "dashlab reproduce: no result cache (%v)\n", err)
	return nil
}

// replay prints a stored result and writes its report into outDir (when
// the command has one); it reports whether there was one.
func (rc *reproduceCache) replay(outDir string, stdout, stderr io.Writer) bool {
	if rc == nil {
		return false
	}
	e, ok, err := rc.c.Get(rc.key)
	if err != nil {
		fmt.Fprintf(stderr, "dashlab reproduce: the cached result is unreadable, recomputing: %v\n", err)
		return false
	}
	if !ok || (outDir != "") != (len(e.Files) > 0) {
		return false
	}
	paths, err := resultcache.WriteFiles(outDir, e.Files)
	if err != nil {
		fmt.Fprintf(stderr, "dashlab reproduce: writing the cached report: %v; recomputing\n", err)
		return false
	}
	for _, p := range paths {
		fmt.Fprintf(stderr, "dashlab reproduce: wrote %s\n", p)
	}
	fmt.Fprintf(stderr, "dashlab reproduce: the result of %s (%s, computed in %v; --no-cache recomputes, 'dashlab cache clear' empties the cache)\n",
		e.Meta.Created.Format(time.RFC3339), filepath.Join(rc.c.Root, rc.c.Kind, rc.key[:12]+"..."), e.Meta.Elapsed.Round(time.Second))
	_, err = stdout.Write(e.Stdout)
	return err == nil
}

// record returns the writer the command prints to: stdout, copied for
// the cache.
func (rc *reproduceCache) record(stdout io.Writer) io.Writer {
	if rc == nil {
		return stdout
	}
	return io.MultiWriter(stdout, &rc.out)
}

// addFile records a file the command wrote (the report page), by its
// name in the output directory.
func (rc *reproduceCache) addFile(path string) {
	if rc == nil {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		rc.files = nil
		rc.key = "" // the entry would lack its report: store nothing
		return
	}
	if rc.files == nil {
		rc.files = map[string][]byte{}
	}
	rc.files[filepath.Base(path)] = b
}

// store keeps the result of a command that succeeded.
func (rc *reproduceCache) store(err error, elapsed time.Duration) {
	if rc == nil || err != nil || rc.key == "" {
		return
	}
	e := resultcache.Entry{Stdout: rc.out.Bytes(), Files: rc.files,
		Meta: resultcache.Meta{Created: time.Now().UTC(), Elapsed: elapsed, Inputs: slices.Clone(rc.inputs)}}
	if perr := rc.c.Put(rc.key, e); perr != nil {
		fmt.Fprintf(rc.stderr, "dashlab reproduce: the result was not cached: %v\n", perr)
	}
}
