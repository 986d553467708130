package reference

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/internal/safeio"
)

// profiles holds the measured operator profiles shipped with dashlab, one
// directory each; reference/profiles/README.md gives their provenance.
//
//go:embed profiles
var profiles embed.FS

// Profile returns the files of a shipped profile ("h200-sxm",
// "h200-host-offload") as a file system rooted at its directory.
func Profile(name string) (fs.FS, error) {
	if slices.Contains(ProfileNames(), name) {
		return fs.Sub(profiles, "profiles/"+name)
	}
	return nil, fmt.Errorf("no shipped profile %s (available: %s)", safeio.Quote(name), strings.Join(ProfileNames(), ", "))
}

// ProfileNames lists the shipped profiles, sorted.
func ProfileNames() []string {
	entries, err := fs.ReadDir(profiles, "profiles")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}
