// Package resultcache keeps the outputs of long deterministic commands
// (dashlab reproduce) on disk, so that running the same command again with
// the same binary and inputs prints the same bytes at once.
//
// An entry is keyed by the build of the running binary (a SHA-256 of its
// executable file, with the module build info beside it), by a content
// hash of the data it embeds, and by every input the caller names (the
// command line): any change in any of them is another key, so a hit is
// never stale. An entry holds the command's standard output and the files
// it wrote (an HTML report), with a small record of when and how long it
// took. Entries are written to a temporary directory and renamed into
// place, which is atomic: a reader sees an entry whole or not at all, and
// two processes filling the same entry at once leave one of the two,
// identical, copies.
//
// The cache lives in os.UserCacheDir()/dashlab (XDG_CACHE_HOME/dashlab on
// Linux when set, else ~/.cache/dashlab; ~/Library/Caches/dashlab on macOS).
package resultcache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
)

// Dir is the cache's root: os.UserCacheDir()/dashlab.
func Dir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w (set XDG_CACHE_HOME or HOME)", err)
	}
	return filepath.Join(d, "dashlab"), nil
}

// Cache is one kind of entry (a command) under a root directory.
type Cache struct {
	// Root is the cache directory (Dir); Kind names the command whose
	// outputs it keeps (a subdirectory).
	Root, Kind string
}

// Open returns the cache of a kind under Dir().
func Open(kind string) (Cache, error) {
	d, err := Dir()
	return Cache{Root: d, Kind: kind}, err
}

func (c Cache) dir() string { return filepath.Join(c.Root, c.Kind) }

// formatVersion changes when the entry layout does.
const formatVersion = "resultcache/1"

// Key is the entry of a computation: the running binary's build, the
// embedded data's hash and the inputs, hashed together.
func Key(dataHash string, inputs ...string) (string, error) {
	b, err := Build()
	if err != nil {
		return "", err
	}
	return keyOf(b, dataHash, inputs), nil
}

func keyOf(build, dataHash string, inputs []string) string {
	h := sha256.New()
	for _, part := range append([]string{formatVersion, build, dataHash}, inputs...) {
		fmt.Fprintf(h, "%d:%s\n", len(part), part) // length-prefixed: no two lists encode alike
	}
	return hex.EncodeToString(h.Sum(nil))
}

var build struct {
	once sync.Once
	id   string
	err  error
}

// Build identifies the running binary: the SHA-256 of its executable
// file and its module build info (Go version, module, dependencies, VCS
// revision). It is computed once per process.
func Build() (string, error) {
	build.once.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			build.err = fmt.Errorf("the running binary cannot be found: %w", err)
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			build.err = fmt.Errorf("the running binary cannot be read: %w", err)
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			build.err = fmt.Errorf("reading the running binary: %w", err)
			return
		}
		info := ""
		if bi, ok := debug.ReadBuildInfo(); ok {
			info = bi.String()
		}
		sum := sha256.Sum256([]byte(info))
		build.id = hex.EncodeToString(h.Sum(nil)) + "+" + hex.EncodeToString(sum[:8])
	})
	return build.id, build.err
}

// Entry is what a cached computation produced.
type Entry struct {
	// Stdout is what the command printed.
	Stdout []byte
	// Files are the files it wrote, by slash-separated path relative to
	// its output directory.
	Files map[string][]byte
	// Meta says when and how the entry was made.
	Meta Meta
}

// Meta is an entry's record.
type Meta struct {
	// Created is when the computation finished; Elapsed its wall time.
	Created time.Time     `json:"created"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Inputs are the inputs of its key, for people reading the cache.
	Inputs []string `json:"inputs"`
}

// Get returns the entry of key, if the cache holds it.
func (c Cache) Get(key string) (Entry, bool, error) {
	dir := filepath.Join(c.dir(), key)
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, err
	}
	var e Entry
	if err := json.Unmarshal(meta, &e.Meta); err != nil {
		return Entry{}, false, fmt.Errorf("cache entry %s: %w", dir, err)
	}
	if e.Stdout, err = os.ReadFile(filepath.Join(dir, "stdout")); err != nil {
		return Entry{}, false, fmt.Errorf("cache entry %s: %w", dir, err)
	}
	e.Files, err = ReadFiles(filepath.Join(dir, "files"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Entry{}, false, fmt.Errorf("cache entry %s: %w", dir, err)
	}
	return e, true, nil
}

// Put stores the entry of key: written whole in a temporary directory
// beside the others, then renamed into place. If another process stored
// the same key meanwhile, its entry is kept (the two are the same).
func (c Cache) Put(key string, e Entry) error {
	if err := os.MkdirAll(c.dir(), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(c.dir(), ".tmp-"+key[:min(12, len(key))]+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // gone once renamed
	meta, err := json.MarshalIndent(e.Meta, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "stdout"), e.Stdout, 0o644); err != nil {
		return err
	}
	for name, b := range e.Files {
		p := filepath.Join(tmp, "files", filepath.FromSlash(name))
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			return fmt.Errorf("cache: file %q is outside the entry", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	// meta.json last: Get reads an entry by it.
	if err := os.WriteFile(filepath.Join(tmp, "meta.json"), meta, 0o644); err != nil {
		return err
	}
	final := filepath.Join(c.dir(), key)
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(filepath.Join(final, "meta.json")); statErr == nil {
			return nil // another process stored it first
		}
		return err
	}
	return nil
}

// Info describes the cache's entries.
type Info struct {
	// Dir is the kind's directory; Entries and Bytes count what it holds.
	Dir     string
	Entries int
	Bytes   int64
}

// Stat counts the entries and their bytes.
func (c Cache) Stat() (Info, error) {
	in := Info{Dir: c.dir()}
	des, err := os.ReadDir(c.dir())
	if errors.Is(err, fs.ErrNotExist) {
		return in, nil
	}
	if err != nil {
		return in, err
	}
	for _, d := range des {
		if d.IsDir() && !strings.HasPrefix(d.Name(), ".tmp-") {
			in.Entries++
		}
	}
	err = filepath.WalkDir(c.dir(), func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if i, err := d.Info(); err == nil && !d.IsDir() {
			in.Bytes += i.Size()
		}
		return nil
	})
	return in, err
}

// Clear removes every entry of every kind under root (the whole cache
// directory, Dir()).
func Clear(root string) error {
	if root == "" || root == "/" {
		return fmt.Errorf("cache: refusing to clear %q", root)
	}
	return os.RemoveAll(root)
}

// ReadFiles reads every file under dir, by slash-separated relative path
// (what Put stores of a command's output directory).
func ReadFiles(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	return out, err
}

// WriteFiles writes files (from an entry) under dir, creating it, in
// sorted order; it returns the paths written.
func WriteFiles(dir string, files map[string][]byte) ([]string, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var paths []string
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return paths, err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
