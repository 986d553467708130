package resultdocs

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/dashlab/dashlab/summary"
)

// GoldenPath is the committed reproduction, relative to the repository root: the output
// of `dashlab reproduce --format json --quiet`, byte for byte.
const GoldenPath = "reference/reproduction.json"

// Load reads a `dashlab reproduce --format json` output: its rows.
func Load(path string) ([]summary.Row, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Result        struct {
			Rows []summary.Row `json:"rows"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Result.Rows) == 0 {
		return nil, fmt.Errorf("%s: no rows (not a `dashlab reproduce --format json` output?)", path)
	}
	return doc.Result.Rows, nil
}
