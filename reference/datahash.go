package reference

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"sync"
)

var dataHash = sync.OnceValue(func() string {
	h := sha256.New()
	fmt.Fprintf(h, "paper.yaml %d\n", len(paperYAML))
	h.Write(paperYAML)
	for _, fsys := range []fs.FS{experimentFiles, gpuFiles, hostFiles, modelFiles, profiles, routingFiles, sweepFiles, systemFiles} {
		if err := HashFS(h, fsys); err != nil {
			panic("reference: embedded data unreadable: " + err.Error())
		}
	}
	return hex.EncodeToString(h.Sum(nil))
})

// DataHash is the SHA-256 of every file the package embeds (paper.yaml,
// the models, systems, GPUs, hosts, experiments, sweeps, routing traces and
// profiles), names and
// contents: what a result cache keys on besides the binary.
func DataHash() string { return dataHash() }

// HashFS adds every file of fsys to h, in lexical order, each as its path,
// its length and its bytes.
func HashFS(h hash.Hash, fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
}
