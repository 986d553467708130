package charts

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

func TestSystemColorOnePerSystem(t *testing.T) {
	relay := SystemColor("relay-only")
	for _, name := range []string{"RelayOnly", "relay-only-4", "RELAY-ONLY"} {
		if got := SystemColor(name); got != relay {
			t.Errorf("SystemColor(%q) = %q, want RelayOnly's %q", name, got, relay)
		}
	}
	seen := map[string]string{}
	for _, id := range paperSystems {
		c := SystemColor(id)
		if c == "" || seen[c] != "" {
			t.Errorf("SystemColor(%q) = %q (also %q)", id, c, seen[c])
		}
		seen[c] = id
	}
	if c := SystemColor("Qwen3 TPOT"); c != "" {
		t.Errorf("a series that is no system got %q", c)
	}
	// A line chart and a bar chart draw RelayOnly in the same colour, whatever its position.
	l, err := Lines(LineSpec{Common: Common{ID: "l"}, Series: []XYSeries{{Name: "DASH", Points: []Point{{1, 1}}}, {Name: "RelayOnly", Points: []Point{{1, 2}}}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := GroupedBar(BarSpec{Common: Common{ID: "b"}, Categories: []string{"x"}, Series: []Series{{Name: "RelayOnly", Values: []float64{1}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Chart{l, b} {
		h, err := Snippet(c)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(h), `"color":"`+relay+`"`) {
			t.Errorf("RelayOnly not drawn in %s", relay)
		}
	}
	// One series over systems (notebook 99: "your part" on DASH, RelayOnly, DirectOnly):
	// each bar in its system's colour.
	b, err = GroupedBar(BarSpec{Common: Common{ID: "b2"}, Categories: []string{"DASH", "RelayOnly", "DirectOnly"},
		Series: []Series{{Name: "your part", Values: []float64{3, 2, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := Snippet(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, sys := range []string{"dash", "relay-only", "direct-only"} {
		if !strings.Contains(string(h), `"color":"`+SystemColor(sys)+`"`) {
			t.Errorf("%s's bar not drawn in %s", sys, SystemColor(sys))
		}
	}
}

func TestDur(t *testing.T) {
	for d, want := range map[unit.Duration]string{
		14791600 * unit.Nanosecond: "14.79 ms",
		3 * unit.Microsecond:       "3 µs",
		1500 * unit.Millisecond:    "1.5 s",
		850 * unit.Nanosecond:      "850 ns",
		-2 * unit.Microsecond:      "-2 µs",
	} {
		if got := Dur(d); got != want {
			t.Errorf("Dur(%v) = %q, want %q", d, got, want)
		}
	}
}

// Reference-line labels sit in the right margin, one custom series per line named like
// the line (the legend switches both), and the markLine draws no label of its own.
func TestRefLabelsInTheMargin(t *testing.T) {
	b, err := GroupedBar(BarSpec{Common: Common{ID: "r"}, Categories: []string{"x"}, Series: []Series{{Name: "s", Values: []float64{1}}},
		RefLines: []RefLine{{Name: "simulated: 1.58×", Y: 1.58, Label: "simulated 1.58×"}, {Name: "simulated: 1.51×", Y: 1.51}}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := Snippet(b)
	if err != nil {
		t.Fatal(err)
	}
	s := string(h)
	for _, want := range []string{`"simulated 1.58×"`, `var ys = [1.58, 1.51]`, `"type":"custom"`, `"right":"`} {
		if !strings.Contains(s, want) {
			t.Errorf("%s missing", want)
		}
	}
	if strings.Count(s, `"grid":[`) != 1 || strings.Count(s, `"containLabel":true`) != 1 {
		t.Error("want exactly one grid")
	}
}

func TestLargeLinesDoNotAnimate(t *testing.T) {
	pts := make([]Point, 1500)
	for i := range pts {
		pts[i] = Point{float64(i), float64(i % 7)}
	}
	for n, want := range map[int]bool{10: false, 1500: true} {
		l, err := Lines(LineSpec{Common: Common{ID: "big"}, Series: []XYSeries{{Name: "s", Points: pts[:n]}}})
		if err != nil {
			t.Fatal(err)
		}
		h, err := Snippet(l)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(h), `"animation":false`); got != want {
			t.Errorf("%d points: animation off = %v, want %v", n, got, want)
		}
	}
}

// A one-series bar chart over systems draws each bar in its system's colour and leaves the
// series out of the legend (one swatch could not stand for three colours); the reference
// line stays in it.
func TestPerSystemBarsLeaveTheLegend(t *testing.T) {
	b, err := GroupedBar(BarSpec{Common: Common{ID: "ps"}, Categories: []string{"DASH", "RelayOnly", "DirectOnly"},
		Series:   []Series{{Name: "your part", Values: []float64{3, 2, 1}}},
		RefLines: []RefLine{{Name: "the paper's DASH", Y: 2.5}}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := StaticOf(b)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(st.SVG, ">your part<") || !strings.Contains(st.SVG, "the paper&#39;s DASH") && !strings.Contains(st.SVG, "the paper's DASH") {
		t.Errorf("legend: your part shown %v, reference line shown %v", strings.Contains(st.SVG, ">your part<"), strings.Contains(st.SVG, "the paper"))
	}
	for _, s := range []string{"DASH", "RelayOnly", "DirectOnly"} {
		if !strings.Contains(st.SVG, strings.ToUpper(SystemColor(s))) && !strings.Contains(st.SVG, SystemColor(s)) {
			t.Errorf("no bar in %s's colour %s", s, SystemColor(s))
		}
	}
}
