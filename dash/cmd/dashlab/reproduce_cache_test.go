package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A second reproduce with the same binary and command line prints the
// stored output and writes the stored report; a command line that differs
// in one input misses, and so does one run with DASHLAB_STATIC=0; --no-cache recomputes; cache clear empties it.
func TestReproduceCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	out := t.TempDir()
	args := []string{"reproduce", "--only", "hbf.", "--format", "json", "--out", out, "--quiet"}
	code, first, errs := dashlab(args...)
	if code != 0 || strings.Contains(errs, "the result of") {
		t.Fatalf("first run: exit %d, stderr %q", code, errs)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(out, "index.html"))
	code, second, errs := dashlab(args...)
	if code != 0 || !strings.Contains(errs, "the result of") {
		t.Fatalf("second run: exit %d, stderr %q: not from the cache", code, errs)
	}
	if second != first {
		t.Error("the cached output differs from the computed one")
	}
	if again, _ := os.ReadFile(filepath.Join(out, "index.html")); string(again) != string(page) {
		t.Error("the cached report differs from the computed one")
	}
	// One input changed: a miss (without a report, which is slow to draw).
	small := []string{"reproduce", "--only", "hbf.", "--format", "json", "--quiet"}
	if _, _, errs := dashlab(small...); strings.Contains(errs, "the result of") {
		t.Errorf("the command without --out was answered from the cache of the one with it: %q", errs)
	}
	t.Setenv("DASHLAB_STATIC", "0") // the report's charts without their static images
	if _, _, errs := dashlab(small...); strings.Contains(errs, "the result of") {
		t.Errorf("DASHLAB_STATIC=0 was answered from the cache of the run without it: %q", errs)
	}
	os.Unsetenv("DASHLAB_STATIC")
	other := append([]string{}, small...)
	other[2] = "hbm."
	if _, _, errs := dashlab(other...); strings.Contains(errs, "the result of") {
		t.Errorf("--only hbm. was answered from the cache of --only hbf.: %q", errs)
	}
	if _, _, errs := dashlab(append(small, "--no-cache")...); strings.Contains(errs, "the result of") {
		t.Errorf("--no-cache read the cache: %q", errs)
	}
	code, info, _ := dashlab("cache", "info")
	if code != 0 || !strings.Contains(info, "4 reproduce results") {
		t.Errorf("cache info: exit %d, %q (want the four commands' results)", code, info)
	}
	if code, _, errs := dashlab("cache", "clear"); code != 0 {
		t.Fatalf("cache clear: exit %d: %s", code, errs)
	}
	if _, _, errs := dashlab(small...); strings.Contains(errs, "the result of") {
		t.Errorf("a hit after cache clear: %q", errs)
	}
	if code, _, errs := dashlab("cache", "bogus"); code != 2 || !strings.Contains(errs, "want info or clear") {
		t.Errorf("cache bogus: exit %d, %q", code, errs)
	}
}
