package reference

import "crypto/sha256"

//go:generate go test -run ^TestStoredCatalogue$ -update-stored-catalogue .
//go:generate go test -run ^TestShippedRoutingTraces$ -update-routing-traces .

// storedFile is one catalogue file decoded ahead of time: what decoding a
// file of this name whose bytes have this SHA-256 gives (value builds a
// fresh copy). stored_catalogue.go holds the shipped files of
// reference/models, reference/systems and reference/gpus, written by `go
// generate ./reference` and checked against a fresh decode by
// TestStoredCatalogue.
//
// Strict YAML decoding costs about 0.3 ms a file (yaml.v3 parses each
// file twice or three times: for the integer check, the strict decode and a
// system's base), a tenth of a `dashlab run`'s start-up; a stored file
// costs a digest. A file whose bytes differ (edited, or a new one) is
// decoded as before, so adding a model, system or GPU still needs no code.
type storedFile[T any] struct {
	name  string
	sum   [sha256.Size]byte
	value func() T
}

// lookupStored returns the stored decoding of the file name with contents
// data, if table has one for exactly these bytes.
func lookupStored[T any](table []storedFile[T], name string, data []byte) (T, bool) {
	for i := range table {
		if table[i].name == name {
			if table[i].sum == sha256.Sum256(data) {
				return table[i].value(), true
			}
			break
		}
	}
	var zero T
	return zero, false
}

// storedSystemFile returns the stored decoding of systems/ID.yaml when
// its bytes, and those of every base it starts from, are the stored ones
// (a derived file's stored value holds its base's fields).
func storedSystemFile(id string, data []byte) (SystemFile, bool) {
	f, ok := lookupStored(storedSystems, systemPath(id), data)
	if !ok || f.Base == "" {
		return f, ok
	}
	baseData, err := systemFiles.ReadFile(systemPath(f.Base))
	if err != nil {
		return SystemFile{}, false
	}
	if _, ok := storedSystemFile(f.Base, baseData); !ok {
		return SystemFile{}, false
	}
	return f, true
}
