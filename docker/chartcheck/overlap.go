package main

import "fmt"

// Box is one laid-out component of a chart (ECharts' component view: its group's
// bounding rectangle), in CSS px.
type Box struct {
	Kind string `json:"kind"` // ECharts' component type: title, legend, xAxis, yAxis, visualMap
	X    int    `json:"x"`
	Y    int    `json:"y"`
	W    int    `json:"w"`
	H    int    `json:"h"`
}

// overlapSlack is how far two boxes may overlap, in px, before it counts: a text's box
// includes its line spacing, so touching boxes do not yet draw over each other.
const overlapSlack = 2

// pageGap is the least distance, in px, between a legend or title of one chart and a
// title or legend of another: closer, a legend reads as part of the next chart.
const pageGap = 8

// overlaps lists the charts' boxes that draw over each other: within a chart, any two
// components but the two axes (which meet at the origin by design); across the page, a
// title or legend closer than pageGap to one of another chart.
func overlaps(cs []ChartResult) []string {
	var out []string
	for _, c := range cs {
		for i, a := range c.Boxes {
			for _, b := range c.Boxes[i+1:] {
				if axes(a.Kind) && axes(b.Kind) {
					continue
				}
				if dx, dy := overlap(a, b, 0); dx > overlapSlack && dy > overlapSlack {
					out = append(out, fmt.Sprintf("chart %q: its %s and its %s overlap (%dx%d px)", c.ID, a.Kind, b.Kind, dx, dy))
				}
			}
		}
	}
	type placed struct {
		chart string
		box   Box
	}
	var heads []placed
	for _, c := range cs {
		for _, b := range c.Boxes {
			if b.Kind == "title" || b.Kind == "legend" {
				b.X, b.Y = b.X+c.X, b.Y+c.Y
				heads = append(heads, placed{c.ID, b})
			}
		}
	}
	for i, a := range heads {
		for _, b := range heads[i+1:] {
			if a.chart == b.chart {
				continue
			}
			if dx, dy := overlap(a.box, b.box, pageGap); dx > 0 && dy > 0 {
				out = append(out, fmt.Sprintf("chart %q's %s and chart %q's %s are less than %d px apart on the page", a.chart, a.box.Kind, b.chart, b.box.Kind, pageGap))
			}
		}
	}
	return out
}

func axes(kind string) bool { return kind == "xAxis" || kind == "yAxis" }

// overlap is how far a and b, each grown by gap/2 on every side, overlap horizontally
// and vertically (negative: apart).
func overlap(a, b Box, gap int) (dx, dy int) {
	g := gap / 2
	dx = min(a.X+a.W+g, b.X+b.W+g) - max(a.X-g, b.X-g)
	dy = min(a.Y+a.H+g, b.Y+b.H+g) - max(a.Y-g, b.Y-g)
	return dx, dy
}
