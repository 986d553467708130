package reference

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/dash"
)

//go:embed models/*.yaml
var modelFiles embed.FS

// PaperModelIDs are the six models of the paper's Table II, in its order.
var PaperModelIDs = []string{
	"qwen3-235b-a22b", "mixtral-8x22b", "grok-1", "llama4-maverick", "deepseek-v3", "deepseek-v2",
}

// Fig1ModelIDs are the catalogue models the paper cites for its Fig. 1
// survey: the six of Table II, Kimi-K2 and GLM-5. (The survey's
// DeepSeek-V4-Pro is not in the catalogue: its architecture could not be
// verified.)
var Fig1ModelIDs = append(append([]string(nil), PaperModelIDs...), "kimi-k2", "glm-5")

// Fig9ModelIDs are the five models of the paper's main sweeps (§VI-B);
// DeepSeek-V2 is used only for the lookahead study.
var Fig9ModelIDs = PaperModelIDs[:5]

var catalogue = sync.OnceValues(func() (map[string]dash.ModelSpec, error) {
	entries, err := modelFiles.ReadDir("models")
	if err != nil {
		return nil, err
	}
	out := map[string]dash.ModelSpec{}
	for _, e := range entries {
		name := path.Join("models", e.Name())
		data, err := modelFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var m dash.ModelSpec
		if err := dash.DecodeStrictBytes(data, name, &m); err != nil {
			return nil, err
		}
		if want := strings.TrimSuffix(e.Name(), ".yaml"); m.ID != want {
			return nil, fmt.Errorf("%s: id %q does not match the file name", name, m.ID)
		}
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[m.ID] = m
	}
	return out, nil
})

// ModelIDs lists the catalogue: the paper's six models in Table II order,
// then the others alphabetically.
func ModelIDs() []string {
	cat, err := catalogue()
	if err != nil {
		return nil
	}
	ids := slices.Clone(PaperModelIDs)
	var rest []string
	for id := range cat {
		if !slices.Contains(ids, id) {
			rest = append(rest, id)
		}
	}
	slices.Sort(rest)
	return append(ids, rest...)
}

// Model returns the catalogue model with the given id.
func Model(id string) (dash.ModelSpec, error) {
	cat, err := catalogue()
	if err != nil {
		return dash.ModelSpec{}, fmt.Errorf("model catalogue: %w", err)
	}
	m, ok := cat[id]
	if !ok {
		return dash.ModelSpec{}, fmt.Errorf("unknown model %q (known: %s)", id, strings.Join(ModelIDs(), ", "))
	}
	return m, nil
}

// MustModel is Model for notebooks and examples: it panics on error.
func MustModel(id string) dash.ModelSpec {
	m, err := Model(id)
	if err != nil {
		panic(err)
	}
	return m
}
