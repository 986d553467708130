package charts

import "github.com/dashlab/dashlab/reference/reproduce"

// addBeyondSections adds the offloading comparison, cost and scaling,
// energy and endurance figures that the reproduction computed.
func addBeyondSections(p *Page, art reproduce.Artifacts) error {
	if art.Fig10 != nil {
		f, err := Fig10(art.Fig10)
		if err != nil {
			return err
		}
		p.Figure(f)
	}
	if art.Cost != nil {
		f, err := CostFigure(art.Cost.Grid, art.Cost.Breakeven, art.Cost.Scaling)
		if err != nil {
			return err
		}
		p.Figure(f)
	}
	if len(art.Energy) > 0 {
		f, err := EnergyFigure(art.Energy)
		if err != nil {
			return err
		}
		p.Figure(f)
	}
	if art.Endurance != nil {
		f, err := EnduranceFigure(art.Endurance)
		if err != nil {
			return err
		}
		p.Figure(f)
	}
	return nil
}
