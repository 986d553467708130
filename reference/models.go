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

// modelCache holds decoded model files by id; a file is read, decoded strictly and
// validated on first use, so that a command pays only for the models it uses.
var modelCache sync.Map // id -> modelEntry

type modelEntry struct {
	spec dash.ModelSpec
	err  error
}

// modelFileIDs lists the ids of models/*.yaml, from the file names.
func modelFileIDs() []string {
	entries, err := modelFiles.ReadDir("models")
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return ids
}

// ModelIDs lists the catalogue: the paper's six models in Table II order,
// then the others alphabetically.
func ModelIDs() []string {
	ids := slices.Clone(PaperModelIDs)
	var rest []string
	for _, id := range modelFileIDs() {
		if !slices.Contains(ids, id) {
			rest = append(rest, id)
		}
	}
	slices.Sort(rest)
	return append(ids, rest...)
}

// Model returns the catalogue model with the given id.
func Model(id string) (dash.ModelSpec, error) {
	if v, ok := modelCache.Load(id); ok {
		e := v.(modelEntry)
		return e.spec, e.err
	}
	if !slices.Contains(modelFileIDs(), id) {
		return dash.ModelSpec{}, &UnknownError{Kind: "model", ID: id, Known: ModelIDs()}
	}
	name := path.Join("models", id+".yaml")
	var e modelEntry
	data, err := modelFiles.ReadFile(name)
	switch {
	case err != nil:
		e.err = err
	default:
		var ok bool
		if e.spec, ok = lookupStored(storedModels, name, data); !ok {
			e.err = dash.DecodeStrictBytes(data, name, &e.spec)
		}
	}
	if e.err == nil && e.spec.ID != id {
		e.err = fmt.Errorf("%s: id %q does not match the file name", name, e.spec.ID)
	}
	if e.err == nil {
		if err := e.spec.Validate(); err != nil {
			e.err = fmt.Errorf("%s: %w", name, err)
		}
	}
	if e.err != nil {
		e.err = fmt.Errorf("model catalogue: %w", e.err)
	}
	modelCache.Store(id, e)
	return e.spec, e.err
}

// MustModel is Model for notebooks and examples: it panics on error.
func MustModel(id string) dash.ModelSpec {
	m, err := Model(id)
	if err != nil {
		panic(err)
	}
	return m
}
