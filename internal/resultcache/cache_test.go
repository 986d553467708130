package resultcache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// A key changes with every part it is made of: the build, the embedded
// data and each input, and inputs do not run into one another.
func TestKeyChangesWithEveryInput(t *testing.T) {
	base := keyOf("build-a", "data-a", []string{"dashlab reproduce", "--only", "table2"})
	for name, k := range map[string]string{
		"another build":          keyOf("build-b", "data-a", []string{"dashlab reproduce", "--only", "table2"}),
		"other embedded data":    keyOf("build-a", "data-b", []string{"dashlab reproduce", "--only", "table2"}),
		"another input":          keyOf("build-a", "data-a", []string{"dashlab reproduce", "--only", "table3"}),
		"one more input":         keyOf("build-a", "data-a", []string{"dashlab reproduce", "--only", "table2", "--quiet"}),
		"inputs split elsewhere": keyOf("build-a", "data-a", []string{"dashlab reproduce", "--only table2"}),
	} {
		if k == base {
			t.Errorf("%s: same key", name)
		}
	}
	if again := keyOf("build-a", "data-a", []string{"dashlab reproduce", "--only", "table2"}); again != base {
		t.Error("the same inputs gave another key")
	}
	b1, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	if b2, _ := Build(); b1 != b2 || len(b1) < 64 {
		t.Errorf("build %q then %q", b1, b2)
	}
}

func TestPutGet(t *testing.T) {
	c := Cache{Root: t.TempDir(), Kind: "reproduce"}
	key := keyOf("b", "d", []string{"x"})
	if _, ok, err := c.Get(key); ok || err != nil {
		t.Fatalf("empty cache: hit %v, err %v", ok, err)
	}
	want := Entry{Stdout: []byte("rows\n"), Files: map[string][]byte{"index.html": []byte("<html>"), "assets/a.js": []byte("x")},
		Meta: Meta{Created: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Elapsed: time.Minute, Inputs: []string{"x"}}}
	if err := c.Put(key, want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.Get(key)
	if !ok || err != nil {
		t.Fatalf("hit %v, err %v", ok, err)
	}
	if !bytes.Equal(got.Stdout, want.Stdout) || len(got.Files) != 2 || !bytes.Equal(got.Files["assets/a.js"], []byte("x")) ||
		!got.Meta.Created.Equal(want.Meta.Created) || got.Meta.Elapsed != time.Minute {
		t.Errorf("got %+v", got)
	}
	if err := c.Put(keyOf("b", "d", []string{"y"}), Entry{Files: map[string][]byte{"../escape": nil}}); err == nil {
		t.Error("a file outside the entry was stored")
	}
	in, err := c.Stat()
	if err != nil || in.Entries != 1 || in.Bytes == 0 {
		t.Errorf("stat %+v, %v", in, err)
	}
	dir := t.TempDir()
	paths, err := WriteFiles(dir, got.Files)
	if err != nil || len(paths) != 2 {
		t.Fatalf("wrote %v, %v", paths, err)
	}
	back, err := ReadFiles(dir)
	if err != nil || len(back) != 2 || string(back["index.html"]) != "<html>" {
		t.Errorf("read back %v, %v", back, err)
	}
	if err := Clear(c.Root); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Get(key); ok {
		t.Error("hit after Clear")
	}
}

// Several writers of the same entry and readers at once, as two processes
// running the same command would be: readers see the entry whole or not
// at all, and one whole entry is left, with no temporary directory.
func TestConcurrentWriters(t *testing.T) {
	c := Cache{Root: t.TempDir(), Kind: "reproduce"}
	key := keyOf("b", "d", []string{"same"})
	big := bytes.Repeat([]byte("0123456789"), 100_000)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 8 {
		wg.Go(func() {
			if err := c.Put(key, Entry{Stdout: big, Files: map[string][]byte{"index.html": big}}); err != nil {
				errs <- fmt.Errorf("writer %d: %w", i, err)
			}
		})
		wg.Go(func() {
			for range 20 {
				e, ok, err := c.Get(key)
				if err != nil {
					errs <- err
					return
				}
				if ok && (!bytes.Equal(e.Stdout, big) || !bytes.Equal(e.Files["index.html"], big)) {
					errs <- fmt.Errorf("reader saw a partial entry: %d bytes", len(e.Stdout))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ents, _ := os.ReadDir(filepath.Join(c.Root, c.Kind))
	if len(ents) != 1 || ents[0].Name() != key {
		t.Errorf("left %v", ents)
	}
}
