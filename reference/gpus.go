package reference

import (
	"embed"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/gpu"
)

//go:embed gpus/*.yaml
var gpuFiles embed.FS

// gpuCatalogue decodes every file of reference/gpus once, on first use.
var gpuCatalogue = sync.OnceValues(func() ([]gpu.Spec, error) {
	entries, err := gpuFiles.ReadDir("gpus")
	if err != nil {
		return nil, err
	}
	var out []gpu.Spec
	for _, e := range entries {
		name := path.Join("gpus", e.Name())
		data, err := gpuFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		s, ok := lookupStored(storedGPUs, name, data)
		if !ok {
			if err := dash.DecodeStrictBytes(data, name, &s); err != nil {
				return nil, err
			}
		}
		if want := strings.TrimSuffix(e.Name(), ".yaml"); s.ID != want {
			return nil, fmt.Errorf("%s: id %q does not match the file name", name, s.ID)
		}
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, s)
	}
	return out, nil
})

// GPUs returns the GPU catalogue (reference/gpus), ordered by id.
func GPUs() ([]gpu.Spec, error) { return gpuCatalogue() }

// GPUIDs lists the catalogue's GPU ids.
func GPUIDs() []string {
	specs, _ := gpuCatalogue()
	ids := make([]string, len(specs))
	for i, s := range specs {
		ids[i] = s.ID
	}
	return ids
}

// GPU returns the catalogue GPU with the given id.
func GPU(id string) (gpu.Spec, error) {
	specs, err := gpuCatalogue()
	if err != nil {
		return gpu.Spec{}, fmt.Errorf("GPU catalogue: %w", err)
	}
	for _, s := range specs {
		if s.ID == id {
			return s, nil
		}
	}
	return gpu.Spec{}, &UnknownError{Kind: "GPU", ID: id, Known: GPUIDs()}
}

// MustGPU is GPU for notebooks and examples: it panics on error.
func MustGPU(id string) gpu.Spec {
	s, err := GPU(id)
	if err != nil {
		panic(err)
	}
	return s
}
