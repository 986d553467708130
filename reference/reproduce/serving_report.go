package reproduce

import "github.com/dashlab/dashlab/charts"

// servingFigures are the report's serving figures: the study under the
// paper reading and, when present, under the physical reading, with the
// rows of the table3.* and serving.* ids.
func servingFigures(rep Report) ([]charts.Figure, error) {
	values := map[string]float64{}
	for _, r := range rep.Rows {
		if r.Simulated != nil {
			values[r.ID] = *r.Simulated
		}
	}
	var out []charts.Figure
	if rep.Artifacts.Serving != nil {
		f, err := charts.Table3(rep.Artifacts.Serving, values, "")
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if rep.Artifacts.ServingPhysical != nil {
		f, err := charts.Table3(rep.Artifacts.ServingPhysical, values, PhysicalSuffix)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
