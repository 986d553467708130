package main

import (
	"fmt"
	"io"

	"github.com/dashlab/dashlab/internal/resultcache"
)

func init() {
	register(&command{name: "cache", summary: "show or clear the result cache (reproduce's stored outputs)", run: runCache})
}

func runCache(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("cache", "cache [info|clear]", stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: dashlab cache [info|clear]

  info   the cache directory, its entries and their size (the default)
  clear  remove every stored result

A second 'dashlab reproduce' with the same binary, embedded data and
command line prints the stored output instead of recomputing (--no-cache
recomputes). The cache is os.UserCacheDir()/dashlab: $XDG_CACHE_HOME/dashlab
or ~/.cache/dashlab on Linux, ~/Library/Caches/dashlab on macOS.
`)
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	action := "info"
	switch fs.NArg() {
	case 0:
	case 1:
		action = fs.Arg(0)
	default:
		return fmt.Errorf("%w: want one action, info or clear (got %q)", errUsage, fs.Args())
	}
	root, err := resultcache.Dir()
	if err != nil {
		return err
	}
	switch action {
	case "info":
		in, err := resultcache.Cache{Root: root, Kind: "reproduce"}.Stat()
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d reproduce results, %.1f MB\n", in.Dir, in.Entries, float64(in.Bytes)/1e6)
		return nil
	case "clear":
		if err := resultcache.Clear(root); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed %s\n", root)
		return nil
	}
	return fmt.Errorf("%w: action %q: want info or clear", errUsage, action)
}
