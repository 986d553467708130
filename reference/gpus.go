package reference

import (
	"embed"
	"fmt"
	"sync"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/gpu"
)

//go:embed gpus/*.yaml
var gpuFiles embed.FS

// gpuCatalogue decodes every file of reference/gpus once, on first use.
var gpuCatalogue = sync.OnceValues(func() ([]gpu.Spec, error) {
	return readYAMLDir(gpuFiles, "gpus", func(name string, data []byte) (gpu.Spec, error) {
		s, ok := lookupStored(storedGPUs, name, data)
		if !ok {
			if err := dash.DecodeStrictBytes(data, name, &s); err != nil {
				return s, err
			}
		}
		if err := s.Validate(); err != nil {
			return s, fmt.Errorf("%s: %w", name, err)
		}
		return s, nil
	}, gpuID)
})

func gpuID(s gpu.Spec) string { return s.ID }

// GPUs returns the GPU catalogue (reference/gpus), ordered by id.
func GPUs() ([]gpu.Spec, error) { return gpuCatalogue() }

// GPUIDs lists the catalogue's GPU ids.
func GPUIDs() []string {
	specs, _ := gpuCatalogue()
	return idsOf(specs, gpuID)
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
