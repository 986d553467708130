// Command resultdocs rewrites the documentation's generated regions from the committed
// reproduction (-write), says which are stale (the default), and lists the simulated
// numbers typed in prose (-typed). See package internal/resultdocs.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dashlab/dashlab/internal/resultdocs"
)

func main() {
	root := flag.String("root", ".", "the repository root")
	golden := flag.String("golden", "", "the reproduction to generate from (default: ROOT/"+resultdocs.GoldenPath+")")
	write := flag.Bool("write", false, "rewrite the stale generated regions")
	typed := flag.Bool("typed", false, "list the simulated numbers typed in prose")
	flag.Parse()
	if err := run(*root, *golden, *write, *typed); err != nil {
		fmt.Fprintln(os.Stderr, "resultdocs:", err)
		os.Exit(1)
	}
}

func run(root, golden string, write, typed bool) error {
	if golden == "" {
		golden = filepath.Join(root, resultdocs.GoldenPath)
	}
	rows, err := resultdocs.Load(golden)
	if err != nil {
		return err
	}
	stale, err := resultdocs.Stale(root, rows, write)
	if err != nil {
		return err
	}
	switch {
	case len(stale) > 0 && write:
		fmt.Fprintf(os.Stderr, "resultdocs: rewrote %s\n", strings.Join(stale, ", "))
	case len(stale) > 0:
		return fmt.Errorf("generated regions stale in %s (go generate ./internal/resultdocs rewrites them)", strings.Join(stale, ", "))
	}
	if !typed {
		return nil
	}
	found, err := resultdocs.TypedNumbers(root, rows)
	if err != nil {
		return err
	}
	for _, t := range found {
		fmt.Println(t)
	}
	if len(found) > 0 {
		return fmt.Errorf("%d simulated numbers typed in prose", len(found))
	}
	return nil
}
