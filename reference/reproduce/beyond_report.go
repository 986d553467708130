package reproduce

import "github.com/dashlab/dashlab/charts"

// addBeyondSections adds the offloading comparison, cost and scaling,
// energy and endurance figures that the reproduction computed.
func addBeyondSections(p *charts.Page, art Artifacts) error {
	if art.Fig10 != nil {
		f, err := charts.Fig10(art.Fig10)
		if err != nil {
			return err
		}
		p.Figure(f)
	}
	if art.Cost != nil {
		f, err := charts.CostFigure(art.Cost.Grid, art.Cost.Breakeven, art.Cost.Scaling)
		if err != nil {
			return err
		}
		p.Figure(f)
	}
	if len(art.Energy) > 0 {
		f, err := charts.EnergyFigure(art.Energy)
		if err != nil {
			return err
		}
		p.Figure(f)
	}
	if art.Endurance != nil {
		f, err := charts.EnduranceFigure(art.Endurance)
		if err != nil {
			return err
		}
		p.Figure(f)
	}
	return nil
}
